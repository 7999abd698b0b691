// The 3-D volume ops that are not convolutions or norms (InstanceNorm3d: instance_norm.cpp):
// the soft Dice loss (kernels/volume.cl), a work-group per (n, c) instance, then a fixed-order
// pass over the instances; the axis-1 concat and slice as column copies of [outer, C * inner]
// rows (copy_columns, kernels/columns.cl).
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

namespace {

constexpr size_t kCopyGroup = 256;

}  // namespace

void OpenCLBackend::do_concat_axis1(std::span<const Tensor* const> xs, int64_t outer, int64_t inner,
                                    Tensor& y) {
  const int64_t ldy = y.numel() / outer;
  int64_t col = 0;
  for (const Tensor* x : xs) {
    const int64_t width = x->numel() / outer, n = x->numel();
    if (n > 0)
      launch("copy_columns", cl::NDRange(round_up(n, kCopyGroup)), cl::NDRange(kCopyGroup), *x,
             width, int64_t{0}, width, ldy, col, n, y);
    col += width;
  }
  (void)inner;
}

void OpenCLBackend::do_slice_axis1(const Tensor& x, int64_t outer, int64_t inner, int64_t start,
                                   Tensor& y) {
  const int64_t width = y.numel() / outer, n = y.numel();
  launch("copy_columns", cl::NDRange(round_up(n, kCopyGroup)), cl::NDRange(kCopyGroup), x,
         x.numel() / outer, start * inner, width, width, int64_t{0}, n, y);
}

void OpenCLBackend::do_soft_dice_loss(const Tensor& logits, const Tensor& targets, Layout3d layout,
                                      int64_t batch, int64_t channels, float smooth, float scale,
                                      Tensor& loss, int64_t slot, Tensor& dlogits) {
  const int64_t count = batch * channels, voxels = logits.numel() / count;
  const size_t wg = reduce_group();
  Tensor f = empty({2 * count});  // room for double
  launch("soft_dice", cl::NDRange(static_cast<size_t>(count) * wg), cl::NDRange(wg), logits,
         targets, channels, voxels, layout == Layout3d::ndhwc ? 1 : 0, smooth,
         scale / static_cast<float>(count), f, dlogits);
  launch("soft_dice_mean", cl::NDRange(1), cl::NDRange(1), f, count, slot, loss);
}

}  // namespace sb
