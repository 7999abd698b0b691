// The fronts of the 3-D volume ops that are not convolutions: instance norm and its backward,
// the axis-1 concatenation and slice, and the soft Dice loss (volume_ops.h).
#include <cmath>
#include <span>
#include <string>
#include <utility>

#include "models/ops/op_checks.h"
#include "models/ops/volume_ops.h"

namespace sb {

using namespace checks;

namespace {

void expect_layout(Op op, Layout3d layout) {
  if (layout != Layout3d::ncdhw && layout != Layout3d::ndhwc)
    fail(op, "unknown layout " + text(static_cast<int>(layout)));
}

// batch, channels >= 1 and x holding batch x channels x voxels (>= 1) elements: the voxels.
int64_t expect_volume(Op op, const char* what, const Tensor& x, int64_t batch, int64_t channels) {
  if (batch < 1 || channels < 1)
    fail(op, "batch " + text(batch) + " and channels " + text(channels) + " must be >= 1");
  expect_f32(op, what, x);
  const int64_t per_voxel = batch * channels;
  if (x.numel() == 0 || x.numel() % per_voxel != 0)
    fail(op, describe(what, x) + " is not batch " + text(batch) + " x channels " + text(channels) +
                 " x voxels (>= 1)");
  return x.numel() / per_voxel;
}

// x holds outer x C x inner elements (outer, inner >= 1): returns C.
int64_t expect_axis1(Op op, const char* what, const Tensor& x, int64_t outer, int64_t inner) {
  expect_f32(op, what, x);
  if (x.numel() % (outer * inner) != 0)
    fail(op, describe(what, x) + " is not outer " + text(outer) + " x C x inner " + text(inner));
  return x.numel() / (outer * inner);
}

void expect_outer_inner(Op op, int64_t outer, int64_t inner) {
  if (outer < 1 || inner < 1)
    fail(op, "outer " + text(outer) + " and inner " + text(inner) + " must be >= 1");
}

}  // namespace

void VolumeOps::instance_norm(const Tensor& x, Layout3d layout, int64_t batch, int64_t channels,
                              const Tensor& gamma, const Tensor& beta, float eps, Tensor& y,
                              const NormEpilogue& ep) {
  const Op op = Op::instance_norm;
  expect_layout(op, layout);
  expect_volume(op, "input", x, batch, channels);
  expect_f32_numel(op, "gamma", gamma, channels, "[C]");
  expect_f32_numel(op, "beta", beta, channels, "[C]");
  expect_f32_numel(op, "output", y, x.numel(), "the input's size");
  if (!(eps >= 0.0f)) fail(op, "eps = " + std::to_string(eps) + " must be >= 0");
  expect_distinct(op, "the output", y, "gamma", gamma);
  expect_distinct(op, "the output", y, "beta", beta);
  if (ep.residual) {
    expect_f32_numel(op, "residual", *ep.residual, x.numel(), "the input's size");
    expect_distinct(op, "the residual", *ep.residual, "the input", x);
  }
  expect_act(op, ep.act);
  do_instance_norm(x, layout, batch, channels, gamma, beta, eps, y, ep);
}

void VolumeOps::instance_norm_backward(const Tensor& x, Layout3d layout, int64_t batch,
                                       int64_t channels, const Tensor& gamma, float eps,
                                       const Tensor& dy, Tensor& dx, Tensor& dgamma,
                                       Tensor& dbeta) {
  const Op op = Op::instance_norm_backward;
  expect_layout(op, layout);
  expect_volume(op, "input", x, batch, channels);
  expect_f32_numel(op, "gamma", gamma, channels, "[C]");
  expect_f32_numel(op, "dy", dy, x.numel(), "the input's size");
  expect_f32_numel(op, "dx", dx, x.numel(), "the input's size");
  expect_f32_numel(op, "dgamma", dgamma, channels, "[C]");
  expect_f32_numel(op, "dbeta", dbeta, channels, "[C]");
  if (!(eps >= 0.0f)) fail(op, "eps = " + std::to_string(eps) + " must be >= 0");
  const Named inputs[] = {{"the input", &x}, {"gamma", &gamma}};
  for (const auto& [what, in] : inputs) expect_distinct(op, "dx", dx, what, *in);
  const Named others[] = {{"the input", &x}, {"gamma", &gamma}, {"dy", &dy}, {"dx", &dx}};
  for (const auto& [what, in] : others) {
    expect_distinct(op, "dgamma", dgamma, what, *in);
    expect_distinct(op, "dbeta", dbeta, what, *in);
  }
  expect_distinct(op, "dbeta", dbeta, "dgamma", dgamma);
  do_instance_norm_backward(x, layout, batch, channels, gamma, eps, dy, dx, dgamma, dbeta);
}

void VolumeOps::concat_axis1(std::span<const Tensor* const> xs, int64_t outer, int64_t inner,
                             Tensor& y) {
  const Op op = Op::concat_axis1;
  if (xs.empty()) fail(op, "no inputs");
  expect_outer_inner(op, outer, inner);
  const int64_t width = expect_axis1(op, "output", y, outer, inner);
  int64_t total = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const std::string what = "input " + text(static_cast<int64_t>(i));
    if (xs[i] == nullptr) fail(op, what + " is null");
    total += expect_axis1(op, what.c_str(), *xs[i], outer, inner);
    expect_distinct(op, "the output", y, what.c_str(), *xs[i]);
  }
  if (total != width)
    fail(op, describe("output", y) + " does not hold " + text(total) +
                 " channels (the inputs' sum) of outer " + text(outer) + " x inner " + text(inner));
  if (y.numel() == 0) return;
  do_concat_axis1(xs, outer, inner, y);
}

void VolumeOps::slice_axis1(const Tensor& x, int64_t outer, int64_t inner, int64_t start,
                            Tensor& y) {
  const Op op = Op::slice_axis1;
  expect_outer_inner(op, outer, inner);
  const int64_t cx = expect_axis1(op, "input", x, outer, inner);
  const int64_t cy = expect_axis1(op, "output", y, outer, inner);
  if (start < 0 || start + cy > cx)
    fail(op, "channels [" + text(start) + ", " + text(start + cy) + ") are outside the " +
                 text(cx) + " of " + describe("input", x));
  expect_distinct(op, "the output", y, "the input", x);
  if (y.numel() == 0) return;
  do_slice_axis1(x, outer, inner, start, y);
}

void VolumeOps::soft_dice_loss(const Tensor& logits, const Tensor& targets, Layout3d layout,
                               int64_t batch, int64_t channels, float smooth, float scale,
                               Tensor& loss, int64_t slot, Tensor& dlogits) {
  const Op op = Op::soft_dice_loss;
  expect_layout(op, layout);
  expect_volume(op, "logits", logits, batch, channels);
  expect_f32_numel(op, "targets", targets, logits.numel(), "the logits' size");
  expect_f32_numel(op, "dlogits", dlogits, logits.numel(), "the logits' size");
  if (!(smooth > 0.0f) || !std::isfinite(smooth))
    fail(op, "smooth = " + std::to_string(smooth) + " must be > 0 and finite");
  if (!std::isfinite(scale)) fail(op, "scale = " + std::to_string(scale) + " is not finite");
  expect_distinct(op, "dlogits", dlogits, "the logits", logits);
  expect_distinct(op, "dlogits", dlogits, "the targets", targets);
  expect_f32(op, "loss", loss);
  if (slot < 0 || slot >= loss.numel())
    fail(op, "slot " + text(slot) + " is outside " + describe("loss", loss));
  const Named others[] = {
      {"the logits", &logits}, {"the targets", &targets}, {"dlogits", &dlogits}};
  for (const auto& [what, t] : others) expect_distinct(op, "loss", loss, what, *t);
  do_soft_dice_loss(logits, targets, layout, batch, channels, smooth, scale, loss, slot, dlogits);
}

}  // namespace sb
