// What the separate-pass attentions add to their logits between the GEMMs: the key-padding
// bias (masked attention) and the relative-position term (relative attention).
#include "models/ops/cpu/activation.h"
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/op_times.h"
#include "models/ops/cpu/parallel.h"

namespace sb::cpu {

void CpuBackend::do_add_key_bias(Tensor& logits, const Tensor& key_bias, int64_t heads) {
  const OpScope op_scope(op_log(),
                         [&] { return "add_key_bias " + std::to_string(logits.numel()); });
  const int64_t groups = logits.dim(0), n = logits.dim(1);
  float* lp = f32_data(logits, "add_key_bias logits");
  const float* kp = f32_data(key_bias, "add_key_bias key_bias");
  parallel_for(groups * n, n, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / (heads * n);
      ArrayMap(lp + r * n, n) += ConstArrayMap(kp + b * n, n);
    }
  });
}

void CpuBackend::do_rel_shift_add(Tensor& logits, const Tensor& rel) {
  const OpScope op_scope(op_log(),
                         [&] { return "rel_shift_add " + std::to_string(logits.numel()); });
  const int64_t groups = logits.dim(0), n = logits.dim(1);
  float* lp = f32_data(logits, "rel_shift_add logits");
  const float* rp = f32_data(rel, "rel_shift_add rel");
  // Row (g, i) of logits takes rel[g, i, n-1-i .. 2n-2-i]: one contiguous slice per row.
  parallel_for(groups * n, n, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t i = r % n;
      ArrayMap(lp + r * n, n) += ConstArrayMap(rp + r * (2 * n - 1) + (n - 1 - i), n);
    }
  });
}

}  // namespace sb::cpu
