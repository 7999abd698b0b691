// One-pass elementwise ops over flat ranges or per-channel rows; y may alias x.
#include "models/ops/cpu/activation.h"
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/op_times.h"
#include "models/ops/cpu/parallel.h"

namespace sb::cpu {

void affine_act(const float* x, const float* scale, const float* shift, Act act, float* y,
                int64_t n) {
  ConstArrayMap xv(x, n);
  auto store = [&](const auto& z) { ArrayMap(y, n) = z; };
  if (scale != nullptr && shift != nullptr) {
    with_activation(act, xv * ConstArrayMap(scale, n) + ConstArrayMap(shift, n), store);
  } else if (scale != nullptr) {
    with_activation(act, xv * ConstArrayMap(scale, n), store);
  } else if (shift != nullptr) {
    with_activation(act, xv + ConstArrayMap(shift, n), store);
  } else {
    with_activation(act, xv, store);
  }
}

void CpuBackend::do_affine_channels(const Tensor& x, const Tensor* scale, const Tensor* shift,
                                    Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "affine_channels " + std::to_string(x.numel()); });
  const int64_t c = x.dim(-1), rows = x.numel() / c;
  const float* s = scale != nullptr ? f32_data(*scale, "affine_channels scale") : nullptr;
  const float* t = shift != nullptr ? f32_data(*shift, "affine_channels shift") : nullptr;
  const float* xp = f32_data(x, "affine_channels input");
  float* yp = f32_data(y, "affine_channels output");
  parallel_for(rows, c * kCheapOp, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) affine_act(xp + r * c, s, t, Act::none, yp + r * c, c);
  });
}

void CpuBackend::do_sigmoid_scaled(const Tensor& x, float alpha, Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "sigmoid_scaled " + std::to_string(x.numel()); });
  const float* xp = f32_data(x, "sigmoid_scaled input");
  float* yp = f32_data(y, "sigmoid_scaled output");
  parallel_for(x.numel(), kExpOp, [&](int64_t i0, int64_t i1) {
    ConstArrayMap xv(xp + i0, i1 - i0);
    ArrayMap(yp + i0, i1 - i0) = (1.0f + (-alpha * xv).exp()).inverse();
  });
}

void CpuBackend::do_mul(const Tensor& a, const Tensor& b, Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "mul " + std::to_string(a.numel()); });
  const float* ap = f32_data(a, "mul a");
  const float* bp = f32_data(b, "mul b");
  float* yp = f32_data(y, "mul output");
  parallel_for(a.numel(), kCheapOp, [&](int64_t i0, int64_t i1) {
    ArrayMap(yp + i0, i1 - i0) = ConstArrayMap(ap + i0, i1 - i0) * ConstArrayMap(bp + i0, i1 - i0);
  });
}

void CpuBackend::do_add(const Tensor& a, const Tensor& b, Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "add " + std::to_string(a.numel()); });
  const float* ap = f32_data(a, "add a");
  const float* bp = f32_data(b, "add b");
  float* yp = f32_data(y, "add output");
  parallel_for(a.numel(), kCheapOp, [&](int64_t i0, int64_t i1) {
    ArrayMap(yp + i0, i1 - i0) = ConstArrayMap(ap + i0, i1 - i0) + ConstArrayMap(bp + i0, i1 - i0);
  });
}

void CpuBackend::do_activation(const Tensor& x, Act act, Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "activation " + std::to_string(x.numel()); });
  const float* xp = f32_data(x, "activation input");
  float* yp = f32_data(y, "activation output");
  const int64_t cost = act == Act::none || act == Act::relu ? kCheapOp : kExpOp;
  parallel_for(x.numel(), cost, [&](int64_t i0, int64_t i1) {
    affine_act(xp + i0, nullptr, nullptr, act, yp + i0, i1 - i0);
  });
}

}  // namespace sb::cpu
