// Inverted dropout with the counter-based mask of dropout_hash.h: the mask depends on the key
// and the element index only, so the OpenCL kernel draws the same one.
#include "models/ops/cpu/activation.h"
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/op_times.h"
#include "models/ops/cpu/parallel.h"
#include "models/ops/dropout_hash.h"
#include "models/ops/knobs.h"

namespace sb::cpu {

namespace {

// y[i] = keep(i) ? x[i] * scale : 0 over [i0, i1), i the element's index in the tensor.
void dropout_range(const float* xp, float* yp, uint32_t k, uint32_t threshold, float scale,
                   int64_t i0, int64_t i1) {
  // x is read whether the element is kept or not: a read only when kept left GCC 12 a masked
  // load of the closure's pointer in OpenMP's outlined copy of this loop, which it could not
  // vectorize, so at more than one thread dropout ran scalar (1.3 ms of DeepFM's step on the
  // 16-core host, results/h200-host/cpu35-2026-11-29). The scalars come by value: a float
  // captured by reference might alias every store to yp, and GCC reloaded it each element and
  // did not vectorize (9x slower, measured).
  for (int64_t i = i0; i < i1; ++i) {
    const float kept = xp[i] * scale;
    yp[i] = dropout_keep(k, threshold, static_cast<uint64_t>(i)) ? kept : 0.0f;
  }
}

int64_t activation_cost(Act act) {
  return act == Act::none || act == Act::relu ? kCheapOp : kExpOp;
}

}  // namespace

// STAGEBENCH_CPU_FUSED_DROPOUT: on (default: activation_dropout and
// dropout_activation_backward in one pass over each chunk) or off (two ops, two passes).
bool read_fused_dropout() {
  return read_on_off_knob("STAGEBENCH_CPU_FUSED_DROPOUT");
}

bool fused_dropout() {
  static const bool on = read_fused_dropout();
  return on;
}

void CpuBackend::do_dropout(const Tensor& x, const DropoutKey& key, Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "dropout " + std::to_string(x.numel()); });
  const float* xp = f32_data(x, "dropout input");
  float* yp = f32_data(y, "dropout output");
  const uint32_t k = dropout_key32(key), threshold = dropout_threshold(key.p);
  const float scale = dropout_scale(key.p);
  parallel_for(x.numel(), 4, [xp, yp, k, threshold, scale](int64_t i0, int64_t i1) {
    dropout_range(xp, yp, k, threshold, scale, i0, i1);
  });
}

// The fused forms (core_ops.h) in one pass: each chunk's activation (or its derivative) and its
// dropout while the chunk is in cache. The chunks are the ones the separate activation op
// would take (the same parallel_for cost), so Eigen's vectorized body and scalar edges fall on
// the same elements and the values are the two ops' bit for bit (ops tests: fused against
// separate). Each op saves a pass over its tensor and a parallel region.
void CpuBackend::do_activation_dropout(const Tensor& x, Act act, const DropoutKey& key, Tensor& y) {
  if (!fused_dropout()) {
    do_activation(x, act, y);
    do_dropout(y, key, y);
    return;
  }
  const OpScope op_scope(op_log(),
                         [&] { return "activation_dropout " + std::to_string(x.numel()); });
  const float* xp = f32_data(x, "activation_dropout input");
  float* yp = f32_data(y, "activation_dropout output");
  const uint32_t k = dropout_key32(key), threshold = dropout_threshold(key.p);
  const float scale = dropout_scale(key.p);
  parallel_for(x.numel(), activation_cost(act), [=](int64_t i0, int64_t i1) {
    affine_act(xp + i0, nullptr, nullptr, act, yp + i0, i1 - i0);
    dropout_range(yp, yp, k, threshold, scale, i0, i1);
  });
}

void CpuBackend::do_dropout_activation_backward(const Tensor& x, const Tensor& dy, Act act,
                                                const DropoutKey& key, Tensor& dx) {
  if (!fused_dropout()) {
    do_dropout(dy, key, dx);
    do_activation_backward(x, dx, act, dx);
    return;
  }
  const OpScope op_scope(
      op_log(), [&] { return "dropout_activation_backward " + std::to_string(x.numel()); });
  const float* xp = f32_data(x, "dropout_activation_backward input");
  const float* dyp = f32_data(dy, "dropout_activation_backward dy");
  float* dxp = f32_data(dx, "dropout_activation_backward dx");
  const uint32_t k = dropout_key32(key), threshold = dropout_threshold(key.p);
  const float scale = dropout_scale(key.p);
  parallel_for(x.numel(), kExpOp, [=](int64_t i0, int64_t i1) {
    dropout_range(dyp, dxp, k, threshold, scale, i0, i1);
    activation_backward_range(act, xp + i0, dxp + i0, dxp + i0, i1 - i0);
  });
}

}  // namespace sb::cpu
