// LayerNorm (three materialized passes, or one Welford pass per row), the residual-add fused
// LayerNorm, and row softmax.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "models/ops/cpu/activation.h"
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
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

void CpuBackend::layernorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps,
                           Tensor& y, bool one_pass) {
  if (!x.defined() || x.rank() < 1 || x.dim(-1) <= 0) {
    throw std::invalid_argument("cpu layernorm: input needs a last dimension, got " +
                                x.shape_string());
  }
  const int64_t c = x.dim(-1), rows = x.numel() / c;
  expect_numel(gamma, c, "layernorm", "gamma");
  expect_numel(beta, c, "layernorm", "beta");
  expect_numel(y, x.numel(), "layernorm", "output");
  const float* xp = f32_data(x, "layernorm input");
  const float* g = f32_data(gamma, "layernorm gamma");
  const float* b = f32_data(beta, "layernorm beta");
  float* yp = f32_data(y, "layernorm output");

  if (one_pass) {
    parallel_for(rows, 3 * c, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const RowStats s = welford_row(xp + r * c, c);
        normalize_row(xp + r * c, s.mean, 1.0f / std::sqrt(s.var + eps), g, b, yp + r * c, c);
      }
    });
    return;
  }

  // The eager way: each statistic is its own pass over x, materialized in a tensor.
  Tensor means = empty({rows});
  Tensor vars = empty({rows});
  float* mp = f32_data(means, "layernorm means");
  float* vp = f32_data(vars, "layernorm variances");
  const float inv_c = 1.0f / static_cast<float>(c);
  parallel_for(rows, c, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) mp[r] = ConstArrayMap(xp + r * c, c).sum() * inv_c;
  });
  parallel_for(rows, c, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      vp[r] = (ConstArrayMap(xp + r * c, c) - mp[r]).square().sum() * inv_c;
    }
  });
  parallel_for(rows, 2 * c, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      normalize_row(xp + r * c, mp[r], 1.0f / std::sqrt(vp[r] + eps), g, b, yp + r * c, c);
    }
  });
}

void CpuBackend::add_layernorm(const Tensor& x, const Tensor& residual, const Tensor& gamma,
                               const Tensor& beta, float eps, Tensor& y) {
  if (!x.defined() || x.rank() < 1 || x.dim(-1) <= 0) {
    throw std::invalid_argument("cpu add_layernorm: input needs a last dimension, got " +
                                x.shape_string());
  }
  const int64_t c = x.dim(-1), rows = x.numel() / c;
  expect_numel(residual, x.numel(), "add_layernorm", "residual");
  expect_numel(gamma, c, "add_layernorm", "gamma");
  expect_numel(beta, c, "add_layernorm", "beta");
  expect_numel(y, x.numel(), "add_layernorm", "output");
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

void CpuBackend::softmax_rows(Tensor& x) {
  if (!x.defined() || x.rank() < 1 || x.dim(-1) <= 0) {
    throw std::invalid_argument("cpu softmax_rows: input needs a last dimension, got " +
                                x.shape_string());
  }
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

}  // namespace sb::cpu
