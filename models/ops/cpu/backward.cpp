// Backward passes of the forward ops: the embedding's scatter into its table, the activations'
// derivatives, LayerNorm and the row softmax. Every sum that spans rows runs in one fixed order
// (no atomics), so each call returns the same bits.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "models/ops/cpu/activation.h"
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/op_times.h"
#include "models/ops/cpu/parallel.h"

namespace sb::cpu {

namespace {

// act'(x) for the activations of activation.h (relu'(0) = 0).
float act_derivative(Act act, float x) {
  switch (act) {
    case Act::none:
      return 1.0f;
    case Act::relu:
      return x > 0.0f ? 1.0f : 0.0f;
    case Act::gelu: {  // d/dx x s(1.702 x) = s + 1.702 x s (1 - s)
      const float s = 1.0f / (1.0f + std::exp(-1.702f * x));
      return s + 1.702f * x * s * (1.0f - s);
    }
    case Act::softplus:  // the logistic sigmoid, without overflow
      return x >= 0.0f ? 1.0f / (1.0f + std::exp(-x)) : std::exp(x) / (1.0f + std::exp(x));
    case Act::gelu_erf:  // Phi(x) + x phi(x)
      return 0.5f * (1.0f + std::erf(x * 0.70710678f)) + x * 0.39894228f * std::exp(-0.5f * x * x);
    case Act::leaky_relu:
      return x > 0.0f ? 1.0f : 0.01f;
    case Act::sigmoid: {  // s (1 - s)
      const float s = 1.0f / (1.0f + std::exp(-x));
      return s * (1.0f - s);
    }
  }
  return 1.0f;
}

}  // namespace

// Tokens grouped by id (a stable sort keeps token order inside a group); each table row then
// adds its tokens' rows in token order, rows of different ids in parallel.
void CpuBackend::do_embedding_backward(const Tensor& dy, const Tensor& ids, Tensor& dtable) {
  const OpScope op_scope(op_log(),
                         [&] { return "embedding_backward " + std::to_string(dy.numel()); });
  const int64_t d = dtable.dim(1), tokens = ids.numel();
  const int32_t* ip = i32_data(ids, "embedding_backward ids");
  const float* dyp = f32_data(dy, "embedding_backward dy");
  float* tp = f32_data(dtable, "embedding_backward dtable");
  std::vector<int64_t> order(static_cast<size_t>(tokens));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return ip[a] < ip[b]; });
  std::vector<int64_t> starts;  // group boundaries in `order`
  for (int64_t i = 0; i < tokens; ++i)
    if (i == 0 || ip[order[i]] != ip[order[i - 1]]) starts.push_back(i);
  starts.push_back(tokens);
  const int64_t groups = static_cast<int64_t>(starts.size()) - 1;
  parallel_for(groups, d * std::max<int64_t>(1, tokens / std::max<int64_t>(1, groups)),
               [&](int64_t g0, int64_t g1) {
                 for (int64_t g = g0; g < g1; ++g) {
                   ArrayMap row(tp + int64_t{ip[order[starts[g]]]} * d, d);
                   for (int64_t i = starts[g]; i < starts[g + 1]; ++i)
                     row += ConstArrayMap(dyp + order[i] * d, d);
                 }
               });
}

void activation_backward_range(Act act, const float* xp, const float* dyp, float* dxp, int64_t n) {
  if (act == Act::relu) {  // vectorized; the switch per element below is not
    ArrayMap(dxp, n) = (ConstArrayMap(xp, n) > 0.0f).select(ConstArrayMap(dyp, n), 0.0f);
    return;
  }
  if (act == Act::leaky_relu) {  // DynUNet's: the scalar loop took 12% of its CPU step
    const ConstArrayMap dy(dyp, n);
    ArrayMap(dxp, n) = (ConstArrayMap(xp, n) > 0.0f).select(dy, dy * 0.01f);
    return;
  }
  if (act == Act::gelu_erf) {  // Phi(x) + x phi(x) as one vectorized Eigen expression
    const ConstArrayMap v(xp, n);
    ArrayMap(dxp, n) = ConstArrayMap(dyp, n) * (0.5f * (1.0f + (v * 0.70710678f).erf()) +
                                                v * 0.39894228f * (-0.5f * v * v).exp());
    return;
  }
  for (int64_t i = 0; i < n; ++i) dxp[i] = dyp[i] * act_derivative(act, xp[i]);
}

void CpuBackend::do_activation_backward(const Tensor& x, const Tensor& dy, Act act, Tensor& dx) {
  const OpScope op_scope(op_log(),
                         [&] { return "activation_backward " + std::to_string(x.numel()); });
  const float* xp = f32_data(x, "activation_backward input");
  const float* dyp = f32_data(dy, "activation_backward dy");
  float* dxp = f32_data(dx, "activation_backward dx");
  parallel_for(x.numel(), kExpOp, [&](int64_t i0, int64_t i1) {
    activation_backward_range(act, xp + i0, dyp + i0, dxp + i0, i1 - i0);
  });
}

// One pass over fixed row blocks: each row's statistics, its share of the block's dgamma and
// dbeta partials, then its dx (dx may be dy: the row's dy is read before its dx is written);
// then the partials are added in block order, in double, a column block per task. Rows are
// Eigen float expressions (vectorized sums; the double loops before were one dependent chain per
// sum: 1.17 ms a call for 1024 x 256 on one thread, 0.34 after; cpu34 vm-1thread). The blocks
// depend on the shape alone, so the bits do not depend on the threads; column blocks over all rows
// (before) made 4 tasks for DeepFM's 256 channels, 4 busy threads of 16.
void CpuBackend::do_layernorm_backward(const Tensor& x, const Tensor& gamma, float eps,
                                       const Tensor& dy, Tensor& dx, Tensor& dgamma,
                                       Tensor& dbeta) {
  const OpScope op_scope(op_log(),
                         [&] { return "layernorm_backward " + std::to_string(x.numel()); });
  const int64_t c = x.dim(-1), rows = x.numel() / c;
  const float* xp = f32_data(x, "layernorm_backward input");
  const float* g = f32_data(gamma, "layernorm_backward gamma");
  const float* dyp = f32_data(dy, "layernorm_backward dy");
  float* dxp = f32_data(dx, "layernorm_backward dx");
  float* dgp = f32_data(dgamma, "layernorm_backward dgamma");
  float* dbp = f32_data(dbeta, "layernorm_backward dbeta");
  // At most about 256 blocks, so the partials stay small for long inputs.
  const int64_t block_rows = std::max<int64_t>(8, (rows + 255) / 256);
  const int64_t blocks = (rows + block_rows - 1) / block_rows;
  // The partials' buffers kept from call to call: fresh vectors of 128 KB each were zeroed (and
  // could be faulted in) at every call, and each block zeroes its own rows anyway.
  static thread_local std::vector<float> pg_buffer, pb_buffer;
  if (pg_buffer.size() < static_cast<size_t>(blocks * c)) {
    pg_buffer.resize(static_cast<size_t>(blocks * c));
    pb_buffer.resize(static_cast<size_t>(blocks * c));
  }
  float* const pg = pg_buffer.data();
  float* const pb = pb_buffer.data();
  const float inv_c = 1.0f / static_cast<float>(c);
  parallel_for(blocks, 8 * block_rows * c, [&](int64_t b0, int64_t b1) {
    Eigen::ArrayXf xhat(c);
    const ConstArrayMap gm(g, c);
    for (int64_t b = b0; b < b1; ++b) {
      ArrayMap sg(pg + b * c, c), sb(pb + b * c, c);
      sg.setZero();
      sb.setZero();
      for (int64_t r = b * block_rows, r_end = std::min(rows, r + block_rows); r < r_end; ++r) {
        const ConstArrayMap xr(xp + r * c, c), dr(dyp + r * c, c);
        const float mu = xr.sum() * inv_c;
        const float rstd = 1.0f / std::sqrt((xr - mu).square().sum() * inv_c + eps);
        xhat = (xr - mu) * rstd;
        sg += dr * xhat;
        sb += dr;
        const float m1 = (dr * gm).sum() * inv_c, m2 = (dr * gm * xhat).sum() * inv_c;
        // dx = rstd (dy gamma - mean(dy gamma) - xhat mean(dy gamma xhat)).
        ArrayMap(dxp + r * c, c) = rstd * (dr * gm - m1 - xhat * m2);
      }
    }
  });
  constexpr int64_t kCols = 64;
  parallel_for((c + kCols - 1) / kCols, 2 * kCols * blocks, [&](int64_t t0, int64_t t1) {
    for (int64_t i0 = t0 * kCols, i1 = std::min(c, t1 * kCols), i = i0; i < i1; ++i) {
      double sg = 0, sb = 0;
      for (int64_t b = 0; b < blocks; ++b) sg += pg[b * c + i], sb += pb[b * c + i];
      dgp[i] = static_cast<float>(sg);
      dbp[i] = static_cast<float>(sb);
    }
  });
}

void CpuBackend::do_softmax_rows_backward(const Tensor& y, const Tensor& dy, Tensor& dx) {
  const OpScope op_scope(op_log(),
                         [&] { return "softmax_rows_backward " + std::to_string(y.numel()); });
  const int64_t c = y.dim(-1), rows = y.numel() / c;
  const float* yp = f32_data(y, "softmax_rows_backward y");
  const float* dyp = f32_data(dy, "softmax_rows_backward dy");
  float* dxp = f32_data(dx, "softmax_rows_backward dx");
  parallel_for(rows, 3 * c, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      double s = 0;
      for (int64_t i = 0; i < c; ++i) s += double(dyp[r * c + i]) * yp[r * c + i];
      const float sf = static_cast<float>(s);
      for (int64_t i = 0; i < c; ++i) dxp[r * c + i] = yp[r * c + i] * (dyp[r * c + i] - sf);
    }
  });
}

}  // namespace sb::cpu
