// LayerNorm and softmax (kernels/norms.cl): a work-group per row for the reductions.
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

size_t reduce_group(const ClRuntime& rt) {
  size_t wg = 256;  // matches REDUCE_WG in OpenCLBackend::kernel()
  while (wg > rt.max_work_group_size()) wg /= 2;
  return wg;
}

}  // namespace

void OpenCLBackend::layernorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps,
                              Tensor& y, bool one_pass) {
  require(x.rank() >= 1 && x.numel() == y.numel(), "layernorm",
          "shapes differ: " + x.shape_string() + " vs " + y.shape_string());
  const int64_t cols = x.dim(-1);
  require(gamma.numel() == cols && beta.numel() == cols, "layernorm",
          "gamma/beta are not [" + std::to_string(cols) + "]");
  const int64_t rows = cols ? x.numel() / cols : 0;
  if (rows == 0) return;
  const size_t wg = reduce_group(*runtime_);
  if (one_pass) {
    launch("layernorm_welford", cl::NDRange(rows * wg), cl::NDRange(wg), x, gamma, beta, eps, cols,
           y);
    return;
  }
  Tensor means = empty({rows});
  Tensor variances = empty({rows});
  launch("row_means", cl::NDRange(rows * wg), cl::NDRange(wg), x, cols, means);
  launch("row_variances", cl::NDRange(rows * wg), cl::NDRange(wg), x, means, cols, variances);
  const int64_t n = x.numel();
  launch("layernorm_apply", cl::NDRange(round_up(n, 256)), cl::NDRange(256), x, means, variances,
         gamma, beta, eps, cols, n, y);
}

void OpenCLBackend::softmax_rows(Tensor& x) {
  require(x.rank() >= 1, "softmax_rows", "scalar input");
  const int64_t cols = x.dim(-1);
  const int64_t rows = cols ? x.numel() / cols : 0;
  if (rows == 0) return;
  const size_t wg = reduce_group(*runtime_);
  launch("softmax_rows", cl::NDRange(rows * wg), cl::NDRange(wg), x, cols);
}

}  // namespace sb
