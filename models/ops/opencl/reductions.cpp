// Reductions (kernels/reductions.cl): row statistics (a work-group per row), sums over the
// middle axis (a work-group per 32 columns where the axis is long, else an item per column) and
// the masked mean (a work-group per 32 channels of an item where the width is a multiple of 4,
// else an item per output element).
#include <string>

#include "models/ops/knobs.h"
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

void OpenCLBackend::do_row_moments(const Tensor& x, Tensor& mean, Tensor& var) {
  const int64_t cols = x.dim(-1), rows = mean.numel();
  const size_t wg = reduce_group();
  launch("row_means", cl::NDRange(rows * wg), cl::NDRange(wg), x, cols, mean);
  launch("row_variances", cl::NDRange(rows * wg), cl::NDRange(wg), x, mean, cols, var);
}

// STAGEBENCH_SUM_AXIS1: split (default) sums a long middle axis on sum_axis1_split; items keeps
// sum_axis1's item per column everywhere, for A/B runs.
bool sum_axis1_split_requested() {
  return read_knob("STAGEBENCH_SUM_AXIS1", true, {{"split", true}, {"items", false}});
}

void OpenCLBackend::do_sum_axis1(const Tensor& x, const Tensor* weights, Tensor& y) {
  const int64_t n = x.dim(1), inner = x.dim(2), columns = y.numel();
  // Below 16 rows an item per column has little to walk, and the split's idle lanes would cost.
  constexpr int64_t kCols = 32, kLanes = 8;  // SA_COLS, SA_LANES in kernels/reductions.cl
  if (sum_axis1_split_ && n >= 16) {
    const int64_t groups = x.dim(0) * ((inner + kCols - 1) / kCols);
    launch("sum_axis1_split", cl::NDRange(groups * kCols * kLanes), cl::NDRange(kCols * kLanes), x,
           weights, weights ? 1 : 0, to_cl_int(n, "sum_axis1 n"),
           to_cl_int(inner, "sum_axis1 inner"), y);
    return;
  }
  launch("sum_axis1", cl::NDRange(round_up(columns, 256)), cl::NDRange(256), x, weights,
         weights ? 1 : 0, n, inner, columns, y);
}

void OpenCLBackend::do_masked_mean(const Tensor& x, const Tensor& weights, Tensor& y) {
  const int64_t n = y.numel(), batch = x.dim(0), seq = x.dim(1), dim = x.dim(2);
  if (row_kernels_vec_ && dim % 4 == 0) {
    constexpr int64_t kQuads = 8, kItems = 256;  // MM_QUADS, MM_QUADS * MM_SEQ in reductions.cl
    const int64_t per_item = (dim / 4 + kQuads - 1) / kQuads;
    launch("masked_mean_quads", cl::NDRange(batch * per_item * kItems), cl::NDRange(kItems), x,
           weights, static_cast<int>(seq), static_cast<int>(dim), y);
    return;
  }
  launch("masked_mean", cl::NDRange(round_up(n, 256)), cl::NDRange(256), x, weights, x.dim(1),
         x.dim(2), n, y);
}

}  // namespace sb
