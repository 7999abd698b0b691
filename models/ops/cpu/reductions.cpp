// Reductions: row statistics (the separate-pass LayerNorm's), sums over the middle axis, and the
// masked mean over tokens.
#include <algorithm>

#include "models/ops/cpu/activation.h"
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/op_times.h"
#include "models/ops/cpu/parallel.h"
#include "models/ops/knobs.h"

namespace sb::cpu {

int64_t read_sum_axis1_block() {
  return read_knob<int64_t>("STAGEBENCH_CPU_SUM_BLOCK", 16, {{"16", 16}, {"64", 64}});
}

void CpuBackend::do_row_moments(const Tensor& x, Tensor& mean, Tensor& var) {
  const OpScope op_scope(op_log(), [&] { return "row_moments " + std::to_string(x.numel()); });
  const int64_t c = x.dim(-1), rows = mean.numel();
  const float* xp = f32_data(x, "row_moments input");
  float* mp = f32_data(mean, "row_moments mean");
  float* vp = f32_data(var, "row_moments var");
  const float inv_c = 1.0f / static_cast<float>(c);
  // Two passes over x, as an eager framework runs them: the means, then the variances of the
  // centred values reading the means back.
  parallel_for(rows, c, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) mp[r] = ConstArrayMap(xp + r * c, c).sum() * inv_c;
  });
  parallel_for(rows, c, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      vp[r] = (ConstArrayMap(xp + r * c, c) - mp[r]).square().sum() * inv_c;
    }
  });
}

void CpuBackend::do_sum_axis1(const Tensor& x, const Tensor* weights, Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "sum_axis1 " + std::to_string(x.numel()); });
  const int64_t outer = x.dim(0), n = x.dim(1), inner = x.dim(2);
  const float* xp = f32_data(x, "sum_axis1 input");
  const float* wp = weights != nullptr ? f32_data(*weights, "sum_axis1 weights") : nullptr;
  float* yp = f32_data(y, "sum_axis1 output");
  // Tasks are (outer, column block) pairs: with outer = 1 (a bias gradient over all rows) a task
  // per outer index ran on one thread. Each element still adds its rows in order j = 0, 1, ...,
  // so the bits do not depend on the split. Blocks of 16 columns (one AVX-512 vector, a cache
  // line a row): with 64, a bias gradient of 256 columns made 4 tasks, 4 busy threads of 16
  // (DeepFM's 1,024 x 256 ones took 45 us each on the 16-core host, cpu36).
  // STAGEBENCH_CPU_SUM_BLOCK=64: the blocks before (A/B runs).
  static const int64_t kCols = read_sum_axis1_block();
  const int64_t col_blocks = (inner + kCols - 1) / kCols;
  parallel_for(outer * col_blocks, 2 * n * std::min(kCols, inner), [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t o = t / col_blocks, c0 = (t % col_blocks) * kCols;
      const int64_t w = std::min(kCols, inner - c0);
      ArrayMap out(yp + o * inner + c0, w);
      out.setZero();
      for (int64_t j = 0; j < n; ++j) {
        const int64_t at = (o * n + j) * inner + c0;
        if (wp != nullptr) {
          out += ConstArrayMap(xp + at, w) * ConstArrayMap(wp + at, w);
        } else {
          out += ConstArrayMap(xp + at, w);
        }
      }
    }
  });
}

void CpuBackend::do_masked_mean(const Tensor& x, const Tensor& weights, Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "masked_mean " + std::to_string(x.numel()); });
  const int64_t batch = x.dim(0), seq = x.dim(1), d = x.dim(2);
  const float* xp = f32_data(x, "masked_mean input");
  const float* wp = f32_data(weights, "masked_mean weights");
  float* yp = f32_data(y, "masked_mean output");
  parallel_for(batch, 2 * seq * d, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      ArrayMap out(yp + b * d, d);
      out.setZero();
      float total = 0.0f;
      for (int64_t s = 0; s < seq; ++s) {
        const float w = wp[b * seq + s];
        if (w == 0.0f) continue;  // padding: skip the row entirely
        out += w * ConstArrayMap(xp + (b * seq + s) * d, d);
        total += w;
      }
      if (total != 0.0f) out *= 1.0f / total;
    }
  });
}

}  // namespace sb::cpu
