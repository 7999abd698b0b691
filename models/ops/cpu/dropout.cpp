// Inverted dropout with the counter-based mask of dropout_hash.h: the mask depends on the key
// and the element index only, so the OpenCL kernel draws the same one.
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/op_times.h"
#include "models/ops/cpu/parallel.h"
#include "models/ops/dropout_hash.h"

namespace sb::cpu {

void CpuBackend::do_dropout(const Tensor& x, const DropoutKey& key, Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "dropout " + std::to_string(x.numel()); });
  const float* xp = f32_data(x, "dropout input");
  float* yp = f32_data(y, "dropout output");
  const uint32_t k = dropout_key32(key), threshold = dropout_threshold(key.p);
  const float scale = dropout_scale(key.p);
  // By value: captured by reference, scale is a float that every store to yp might alias, so
  // the compiler reloaded it each element and did not vectorize the loop (9x slower, measured).
  // x is read whether the element is kept or not: a read only when kept left GCC 12 a masked
  // load of the closure's pointer in OpenMP's outlined copy of this loop, which it could not
  // vectorize, so at more than one thread dropout ran scalar (1.3 ms of DeepFM's step on the
  // 16-core host, results/h200-host/cpu35-2026-11-29).
  parallel_for(x.numel(), 4, [xp, yp, k, threshold, scale](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const float kept = xp[i] * scale;
      yp[i] = dropout_keep(k, threshold, static_cast<uint64_t>(i)) ? kept : 0.0f;
    }
  });
}

// The fused forms (core_ops.h) as the two passes: the same values by construction; the host
// path gains little from one loop, and DeepFM's CPU stages are timed as before (dfm35).
void CpuBackend::do_activation_dropout(const Tensor& x, Act act, const DropoutKey& key, Tensor& y) {
  do_activation(x, act, y);
  do_dropout(y, key, y);
}

void CpuBackend::do_dropout_activation_backward(const Tensor& x, const Tensor& dy, Act act,
                                                const DropoutKey& key, Tensor& dx) {
  do_dropout(dy, key, dx);
  do_activation_backward(x, dx, act, dx);
}

}  // namespace sb::cpu
