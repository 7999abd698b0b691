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
  parallel_for(x.numel(), 4, [xp, yp, k, threshold, scale](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i)
      yp[i] = dropout_keep(k, threshold, static_cast<uint64_t>(i)) ? xp[i] * scale : 0.0f;
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
