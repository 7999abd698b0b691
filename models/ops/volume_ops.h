#pragma once
// The 3-D volume family of the op layer: convolutions and transposed convolutions with their
// backward passes, instance norm, concatenation and slicing along axis 1, and the soft Dice loss,
// over N x C x D x H x W volumes in either Layout3d. A U-Net's (DynUNet's) ops, general to any
// 3-D convolutional network. backend.h's policy applies; the fronts are fronts_conv3d.cpp,
// fronts_conv_transpose3d.cpp and fronts_volume.cpp, the do_<op>s op_list.h's SB_VOLUME_OPS.
#include <cstdint>
#include <span>

#include "models/ops/core_ops.h"

namespace sb {

class VolumeOps : public CoreOps {
 public:
  // y [N, out, od, oh, ow] = conv3d(x, w) + bias (bias [out] or null), PyTorch's Conv3d.
  void conv3d(const Conv3dShape& s, const Tensor& x, const Tensor& w, const Tensor* bias,
              Tensor& y);
  // dx from dy (written), and dw [out, in, k, k, k] with dbias [out] (written; dbias may be null).
  void conv3d_backward_data(const Conv3dShape& s, const Tensor& dy, const Tensor& w, Tensor& dx);
  void conv3d_backward_weights(const Conv3dShape& s, const Tensor& x, const Tensor& dy, Tensor& dw,
                               Tensor* dbias);
  // PyTorch's ConvTranspose3d (w [in, out, k, k, k]), and its two backward ops.
  void conv_transpose3d(const Conv3dShape& s, const Tensor& x, const Tensor& w, const Tensor* bias,
                        Tensor& y);
  void conv_transpose3d_backward_data(const Conv3dShape& s, const Tensor& dy, const Tensor& w,
                                      Tensor& dx);
  void conv_transpose3d_backward_weights(const Conv3dShape& s, const Tensor& x, const Tensor& dy,
                                         Tensor& dw, Tensor* dbias);
  // InstanceNorm3d (affine): per (n, c), over the d h w voxels, biased variance, as PyTorch.
  // x, y hold N x C x `voxels` elements in `layout`; gamma, beta [C]; y may be x. The epilogue
  // (op_types.h) adds a residual and applies an activation in the same pass.
  void instance_norm(const Tensor& x, Layout3d layout, int64_t batch, int64_t channels,
                     const Tensor& gamma, const Tensor& beta, float eps, Tensor& y,
                     const NormEpilogue& ep = {});
  // Its backward, statistics recomputed from x: dx (may be dy), dgamma, dbeta [C] written.
  void instance_norm_backward(const Tensor& x, Layout3d layout, int64_t batch, int64_t channels,
                              const Tensor& gamma, float eps, const Tensor& dy, Tensor& dx,
                              Tensor& dgamma, Tensor& dbeta);
  // Concatenation along axis 1 of [outer, C_i, inner] views (ncdhw channels: outer = N,
  // inner = voxels; with inner = 1 it is concat_last): y [outer, sum C_i, inner].
  void concat_axis1(std::span<const Tensor* const> xs, int64_t outer, int64_t inner, Tensor& y);
  // y [outer, C_y, inner] = x[:, start : start + C_y, :] (x [outer, C_x, inner]).
  void slice_axis1(const Tensor& x, int64_t outer, int64_t inner, int64_t start, Tensor& y);
  // Soft Dice on sigmoid(logits) against targets in [0, 1], per (n, c) over the voxels as MONAI's
  // DiceLoss(sigmoid=True, smooth_nr=smooth_dr=smooth) computes it, averaged over (n, c):
  //   loss = mean_{n,c} 1 - (2 sum p t + smooth) / (sum p + sum t + smooth)
  // loss[slot] is written, dlogits = scale * d loss / d logits. Shapes as instance_norm's.
  void soft_dice_loss(const Tensor& logits, const Tensor& targets, Layout3d layout, int64_t batch,
                      int64_t channels, float smooth, float scale, Tensor& loss, int64_t slot,
                      Tensor& dlogits);

 protected:
  SB_VOLUME_OPS(SB_DECLARE_PURE_VIRTUAL)
};

}  // namespace sb
