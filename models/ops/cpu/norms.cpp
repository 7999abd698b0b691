// LayerNorm in one Welford pass per row, the residual-add fused LayerNorm, the normalization
// that follows row_moments (reductions.cpp) in the separate-pass LayerNorm, and the softmaxes.
#include <algorithm>
#include <cmath>

#include "models/ops/cpu/activation.h"
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/op_times.h"
#include "models/ops/cpu/parallel.h"

namespace sb::cpu {

namespace {

// Welford over chunks: each chunk's mean and centred sum of squares come from two sweeps of
// the chunk in L1 (vectorized), then merge into the running statistics (Chan et al.).
constexpr int64_t kWelfordChunk = 64;

struct RowStats {
  float mean;
  float var;
};

RowStats welford_row(const float* x, int64_t c) {
  double count = 0;  // counts only; the statistics stay in float
  float mean = 0.0f, m2 = 0.0f;
  for (int64_t c0 = 0; c0 < c; c0 += kWelfordChunk) {
    const int64_t len = std::min(kWelfordChunk, c - c0);
    ConstArrayMap chunk(x + c0, len);
    const float chunk_mean = chunk.sum() / static_cast<float>(len);
    const float chunk_m2 = (chunk - chunk_mean).square().sum();
    const double total = count + len;
    const float delta = chunk_mean - mean;
    mean += delta * static_cast<float>(len / total);
    m2 += chunk_m2 + delta * delta * static_cast<float>(count * len / total);
    count = total;
  }
  return {mean, m2 / static_cast<float>(c)};
}

// y = (x - mean) * rstd * gamma + beta over one row.
void normalize_row(const float* x, float mean, float rstd, const float* gamma, const float* beta,
                   float* y, int64_t c) {
  ArrayMap(y, c) =
      (ConstArrayMap(x, c) - mean) * rstd * ConstArrayMap(gamma, c) + ConstArrayMap(beta, c);
}

}  // namespace

void CpuBackend::do_layernorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps,
                              Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "layernorm " + std::to_string(x.numel()); });
  const int64_t c = x.dim(-1), rows = x.numel() / c;
  const float* xp = f32_data(x, "layernorm input");
  const float* g = f32_data(gamma, "layernorm gamma");
  const float* b = f32_data(beta, "layernorm beta");
  float* yp = f32_data(y, "layernorm output");
  parallel_for(rows, 3 * c, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const RowStats s = welford_row(xp + r * c, c);
      normalize_row(xp + r * c, s.mean, 1.0f / std::sqrt(s.var + eps), g, b, yp + r * c, c);
    }
  });
}

void CpuBackend::do_add_layernorm(const Tensor& x, const Tensor& residual, const Tensor& gamma,
                                  const Tensor& beta, float eps, Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "add_layernorm " + std::to_string(x.numel()); });
  const int64_t c = x.dim(-1), rows = x.numel() / c;
  const float* xp = f32_data(x, "add_layernorm input");
  const float* rp = f32_data(residual, "add_layernorm residual");
  const float* g = f32_data(gamma, "add_layernorm gamma");
  const float* b = f32_data(beta, "add_layernorm beta");
  float* yp = f32_data(y, "add_layernorm output");
  // The sum goes straight into y's row (elementwise, so y may alias x or residual) and is
  // normalized there while the row is still in L1: one trip through memory per row.
  parallel_for(rows, 4 * c, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      float* row = yp + r * c;
      ArrayMap(row, c) = ConstArrayMap(xp + r * c, c) + ConstArrayMap(rp + r * c, c);
      const RowStats s = welford_row(row, c);
      normalize_row(row, s.mean, 1.0f / std::sqrt(s.var + eps), g, b, row, c);
    }
  });
}

void CpuBackend::do_normalize_rows(const Tensor& x, const Tensor& mean, const Tensor& var,
                                   const Tensor& gamma, const Tensor& beta, float eps, Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "normalize_rows " + std::to_string(x.numel()); });
  const int64_t c = x.dim(-1), rows = x.numel() / c;
  const float* xp = f32_data(x, "normalize_rows input");
  const float* mp = f32_data(mean, "normalize_rows mean");
  const float* vp = f32_data(var, "normalize_rows var");
  const float* g = f32_data(gamma, "normalize_rows gamma");
  const float* b = f32_data(beta, "normalize_rows beta");
  float* yp = f32_data(y, "normalize_rows output");
  parallel_for(rows, 2 * c, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      normalize_row(xp + r * c, mp[r], 1.0f / std::sqrt(vp[r] + eps), g, b, yp + r * c, c);
    }
  });
}

void CpuBackend::do_softmax_rows(Tensor& x) {
  const OpScope op_scope(op_log(), [&] { return "softmax_rows " + std::to_string(x.numel()); });
  const int64_t c = x.dim(-1), rows = x.numel() / c;
  float* xp = f32_data(x, "softmax_rows input");
  parallel_for(rows, 10 * c, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      ArrayMap row(xp + r * c, c);
      const float max = row.maxCoeff();
      row = (row - max).exp();
      row *= 1.0f / row.sum();
    }
  });
}

void CpuBackend::do_softmax_axis1(const Tensor& x, Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "softmax_axis1 " + std::to_string(x.numel()); });
  const int64_t outer = x.dim(0), n = x.dim(1), inner = x.dim(2);
  const float* xp = f32_data(x, "softmax_axis1 input");
  float* yp = f32_data(y, "softmax_axis1 output");
  // Per outer index, the n rows of `inner` values are combined row by row (contiguous, so
  // Eigen vectorizes); each row is read before its output row is written, so y may be x.
  parallel_for(outer, 10 * n * inner, [&](int64_t o0, int64_t o1) {
    Eigen::ArrayXf max(inner), sum(inner);
    for (int64_t o = o0; o < o1; ++o) {
      const float* xo = xp + o * n * inner;
      float* yo = yp + o * n * inner;
      max = ConstArrayMap(xo, inner);
      for (int64_t j = 1; j < n; ++j) max = max.max(ConstArrayMap(xo + j * inner, inner));
      sum.setZero();
      for (int64_t j = 0; j < n; ++j) {
        ArrayMap row(yo + j * inner, inner);
        row = (ConstArrayMap(xo + j * inner, inner) - max).exp();
        sum += row;
      }
      sum = sum.inverse();
      for (int64_t j = 0; j < n; ++j) ArrayMap(yo + j * inner, inner) *= sum;
    }
  });
}

}  // namespace sb::cpu
