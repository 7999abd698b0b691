// Reductions (kernels/reductions.cl): row statistics (a work-group per row), sums over the
// middle axis and the masked mean (an item per output element).
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

void OpenCLBackend::do_row_moments(const Tensor& x, Tensor& mean, Tensor& var) {
  const int64_t cols = x.dim(-1), rows = mean.numel();
  const size_t wg = reduce_group();
  launch("row_means", cl::NDRange(rows * wg), cl::NDRange(wg), x, cols, mean);
  launch("row_variances", cl::NDRange(rows * wg), cl::NDRange(wg), x, mean, cols, var);
}

void OpenCLBackend::do_sum_axis1(const Tensor& x, const Tensor* weights, Tensor& y) {
  const int64_t n = x.dim(1), inner = x.dim(2), columns = y.numel();
  launch("sum_axis1", cl::NDRange(round_up(columns, 256)), cl::NDRange(256), x, weights,
         weights ? 1 : 0, n, inner, columns, y);
}

void OpenCLBackend::do_masked_mean(const Tensor& x, const Tensor& weights, Tensor& y) {
  const int64_t n = y.numel();
  launch("masked_mean", cl::NDRange(round_up(n, 256)), cl::NDRange(256), x, weights, x.dim(1),
         x.dim(2), n, y);
}

}  // namespace sb
