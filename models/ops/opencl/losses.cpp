// Losses and sum_squares (kernels/losses.cl). Cross-entropy runs as one work-group (small
// [rows, classes] tensors; the loss is reduced in a fixed order); BCE and sum_squares as a
// work-group per chunk, then one over the chunks' partial sums.
#include <algorithm>

#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

namespace {

// Chunks of at least 16 elements per item, at most 1024 of them.
int64_t chunk_groups(int64_t n, int64_t wg) {
  return std::clamp<int64_t>(n / (wg * 16), 1, 1024);
}

}  // namespace

void OpenCLBackend::do_bce_with_logits(const Tensor& logits, const Tensor& targets, float scale,
                                       Tensor& loss, int64_t slot, Tensor& dlogits) {
  const int64_t n = logits.numel();
  const auto wg = static_cast<int64_t>(reduce_group());
  const int64_t groups = chunk_groups(n, wg), per_group = (n + groups - 1) / groups;
  Tensor partials = empty({2 * groups});  // room for double
  launch("bce_with_logits_partial", cl::NDRange(static_cast<size_t>(groups * wg)),
         cl::NDRange(static_cast<size_t>(wg)), logits, targets, n, per_group, scale, partials,
         dlogits);
  launch("partials_final", cl::NDRange(static_cast<size_t>(wg)),
         cl::NDRange(static_cast<size_t>(wg)), partials, groups, n, slot, loss);
}

void OpenCLBackend::do_cross_entropy(const Tensor& logits, const Tensor& labels,
                                     const Tensor* class_weights, float smoothing, float scale,
                                     Tensor& loss, int64_t slot, Tensor& dlogits) {
  const int64_t classes = logits.dim(-1), rows = labels.numel();
  const size_t wg = reduce_group();
  launch("cross_entropy", cl::NDRange(wg), cl::NDRange(wg), logits, labels, class_weights,
         class_weights ? 1 : 0, rows, classes, smoothing, scale, slot, loss, dlogits);
}

void OpenCLBackend::do_sum_squares(const Tensor& x, Tensor& out, int64_t slot) {
  const int64_t n = x.numel();
  const auto wg = static_cast<int64_t>(reduce_group());
  const int64_t groups = chunk_groups(n, wg);
  const int64_t per_group = (n + groups - 1) / groups;
  // Room for the partials in double (the kernels' accumulator where the device has fp64).
  Tensor partials = empty({2 * groups});
  launch("sum_squares_partial", cl::NDRange(static_cast<size_t>(groups * wg)),
         cl::NDRange(static_cast<size_t>(wg)), x, n, per_group, partials);
  launch("partials_final", cl::NDRange(static_cast<size_t>(wg)),
         cl::NDRange(static_cast<size_t>(wg)), partials, groups, 1, slot, out);
}

}  // namespace sb
