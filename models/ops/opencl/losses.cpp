// Losses and sum_squares (kernels/losses.cl). The losses run as one work-group (small
// [rows, classes] tensors; the loss is reduced in a fixed order); sum_squares as a work-group
// per chunk, then one over the chunks' partial sums.
#include <algorithm>

#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

void OpenCLBackend::do_bce_with_logits(const Tensor& logits, const Tensor& targets, float scale,
                                       Tensor& loss, int64_t slot, Tensor& dlogits) {
  const size_t wg = reduce_group();
  launch("bce_with_logits", cl::NDRange(wg), cl::NDRange(wg), logits, targets, logits.numel(),
         scale, slot, loss, dlogits);
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
  // Chunks of at least 16 elements per item, at most 1024 of them.
  const int64_t groups = std::clamp<int64_t>(n / (wg * 16), 1, 1024);
  const int64_t per_group = (n + groups - 1) / groups;
  // Room for the partials in double (the kernels' accumulator where the device has fp64).
  Tensor partials = empty({2 * groups});
  launch("sum_squares_partial", cl::NDRange(static_cast<size_t>(groups * wg)),
         cl::NDRange(static_cast<size_t>(wg)), x, n, per_group, partials);
  launch("sum_squares_final", cl::NDRange(static_cast<size_t>(wg)),
         cl::NDRange(static_cast<size_t>(wg)), partials, groups, slot, out);
}

}  // namespace sb
