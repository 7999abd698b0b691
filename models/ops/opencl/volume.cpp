// The 3-D volume ops that are not convolutions or norms (InstanceNorm3d: instance_norm.cpp):
// the soft Dice loss (kernels/volume.cl: chunk sums, a fixed-order sum per instance, dz
// elementwise, then the mean over the instances); the axis-1 concat and slice as column copies
// of [outer, C * inner] rows (copy_columns, kernels/columns.cl).
#include "models/ops/opencl/opencl_backend_impl.h"
#include "models/ops/opencl/volume_chunks.h"

namespace sb {

namespace {

constexpr size_t kCopyGroup = 256;

}  // namespace

void OpenCLBackend::do_concat_axis1(std::span<const Tensor* const> xs, int64_t outer, int64_t inner,
                                    Tensor& y) {
  const int64_t ldy = y.numel() / outer;
  int64_t col = 0;
  Tensor* yb = bf16_copy_to_write(y);  // y is about to be held for bf16 reads
  for (const Tensor* x : xs) {
    const int64_t width = x->numel() / outer, n = x->numel();
    const cl::NDRange global(round_up(n, kCopyGroup)), local(kCopyGroup);
    if (n > 0 && yb)
      launch("copy_columns_bf16", global, local, *x, width, int64_t{0}, width, ldy, col, n, y, *yb);
    else if (n > 0)
      launch("copy_columns", global, local, *x, width, int64_t{0}, width, ldy, col, n, y);
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
  const int total = to_cl_int(logits.numel(), "soft_dice size");
  const int c = to_cl_int(channels, "soft_dice channels"),
            v = to_cl_int(voxels, "soft_dice voxels");
  const int ndhwc = layout == Layout3d::ndhwc ? 1 : 0;
  const size_t wg = reduce_group();
  const VolumeChunks p = volume_chunks(batch, channels, voxels, ndhwc != 0, wg);
  Tensor partials = empty({2 * 3 * count * p.chunks});  // room for double
  launch("soft_dice_partials",
         cl::NDRange(static_cast<size_t>(p.chunks) * wg, static_cast<size_t>(p.blocks),
                     static_cast<size_t>(batch)),
         cl::NDRange(wg, 1, 1), logits, targets, c, v, ndhwc, p.cb_size, p.chunk, partials);
  Tensor f = empty({2 * count}), coef = empty({4 * count});  // room for double
  launch("soft_dice_finalize", cl::NDRange(round_up(count, 64)), cl::NDRange(64), partials,
         to_cl_int(count, "instances"), p.chunks, smooth, f, coef);
  launch("soft_dice_apply", cl::NDRange(round_up(total, 256)), cl::NDRange(256), logits, targets, c,
         v, ndhwc, coef, scale / static_cast<float>(count), dlogits, total);
  launch("soft_dice_mean", cl::NDRange(1), cl::NDRange(1), f, count, slot, loss);
}

}  // namespace sb
