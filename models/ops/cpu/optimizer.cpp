// AdamW (torch.optim.AdamW's arithmetic, single-tensor form): one elementwise pass updating the
// parameter and both moments in place. The bias corrections are computed once, in double.
#include <cmath>

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
  parallel_for(param.numel(), 8, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const float gi = g[i] * gs;
      const float mi = b1 * mp[i] + (1.0f - b1) * gi;
      const float vi = b2 * vp[i] + (1.0f - b2) * gi * gi;
      mp[i] = mi;
      vp[i] = vi;
      p[i] = p[i] * decay - step_size * mi / (std::sqrt(vi) / bc2_sqrt + eps);
    }
  });
}

}  // namespace sb::cpu
