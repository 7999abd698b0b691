// AdamW (torch.optim.AdamW's arithmetic, single-tensor form): one elementwise pass updating the
// parameter and both moments in place. The bias corrections are computed once, in double.
#include <cmath>

#include "models/ops/cpu/activation.h"
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/op_times.h"
#include "models/ops/cpu/parallel.h"

namespace sb::cpu {

void CpuBackend::do_adamw(Tensor& param, const Tensor& grad, Tensor& m, Tensor& v,
                          const AdamWStep& s) {
  const OpScope op_scope(op_log(), [&] { return "adamw " + std::to_string(param.numel()); });
  float* p = f32_data(param, "adamw param");
  const float* g = f32_data(grad, "adamw grad");
  float* mp = f32_data(m, "adamw m");
  float* vp = f32_data(v, "adamw v");
  const double t = static_cast<double>(s.step);
  const float step_size = static_cast<float>(s.lr / (1.0 - std::pow(double(s.beta1), t)));
  const float bc2_sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(double(s.beta2), t)));
  const float decay = 1.0f - s.lr * s.weight_decay;
  const float b1 = s.beta1, b2 = s.beta2, eps = s.eps, gs = s.grad_scale;
  // Eigen array expressions over each chunk: vectorized. The scalar loop was not (std::sqrt may
  // set errno, so GCC keeps it scalar without -fno-math-errno), and captured by reference its
  // float scalars might alias the float stores. Eigen's sqrt is the exact one.
  parallel_for(param.numel(), 8, [=](int64_t i0, int64_t i1) {
    const int64_t n = i1 - i0;
    ArrayMap pm(p + i0, n), mm(mp + i0, n), vm(vp + i0, n);
    const auto gi = ConstArrayMap(g + i0, n) * gs;
    mm = b1 * mm + (1.0f - b1) * gi;
    vm = b2 * vm + (1.0f - b2) * gi * gi;
    pm = pm * decay - step_size * mm / (vm.sqrt() / bc2_sqrt + eps);
  });
}

}  // namespace sb::cpu
