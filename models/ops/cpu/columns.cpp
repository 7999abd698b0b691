// Column ops of the training graph, over [rows, channels] views: concatenation and slicing along
// the last dimension, and the column gather with its scatter-add backward.
#include <cstring>

#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/op_times.h"
#include "models/ops/cpu/parallel.h"

namespace sb::cpu {

void CpuBackend::do_concat_last(std::span<const Tensor* const> xs, Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "concat_last " + std::to_string(y.numel()); });
  const int64_t width = y.dim(-1), rows = y.numel() / width;
  std::vector<const float*> src(xs.size());
  std::vector<int64_t> cols(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    src[i] = f32_data(*xs[i], "concat_last input");
    cols[i] = xs[i]->dim(-1);
  }
  float* yp = f32_data(y, "concat_last output");
  parallel_for(rows, width, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      float* dst = yp + r * width;
      for (size_t i = 0; i < xs.size(); ++i) {
        if (cols[i] == 0) continue;
        std::memcpy(dst, src[i] + r * cols[i], cols[i] * sizeof(float));
        dst += cols[i];
      }
    }
  });
}

void CpuBackend::do_slice_last(const Tensor& x, int64_t start, Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "slice_last " + std::to_string(y.numel()); });
  const int64_t c = x.dim(-1), k = y.dim(-1), rows = y.numel() / k;
  const float* xp = f32_data(x, "slice_last input");
  float* yp = f32_data(y, "slice_last output");
  parallel_for(rows, k, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      std::memcpy(yp + r * k, xp + r * c + start, k * sizeof(float));
  });
}

void CpuBackend::do_gather_cols(const Tensor& x, std::span<const int64_t> index, Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "gather_cols " + std::to_string(y.numel()); });
  const int64_t c = x.dim(-1), k = y.dim(-1), rows = y.numel() / k;
  const float* xp = f32_data(x, "gather_cols input");
  float* yp = f32_data(y, "gather_cols output");
  parallel_for(rows, k, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t j = 0; j < k; ++j) yp[r * k + j] = xp[r * c + index[j]];
  });
}

// Rows are independent and each row adds its columns in index order: repeated indices sum in
// the same order on every call, whatever the threads.
void CpuBackend::do_scatter_add_cols(const Tensor& y, std::span<const int64_t> index, Tensor& x) {
  const OpScope op_scope(op_log(), [&] { return "scatter_add_cols " + std::to_string(y.numel()); });
  const int64_t c = x.dim(-1), k = y.dim(-1), rows = y.numel() / k;
  const float* yp = f32_data(y, "scatter_add_cols input");
  float* xp = f32_data(x, "scatter_add_cols output");
  parallel_for(rows, k, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t j = 0; j < k; ++j) xp[r * c + index[j]] += yp[r * k + j];
  });
}

}  // namespace sb::cpu
