// The fronts of the 3-D convolution and its two backward ops (PyTorch's Conv3d): the shapes per
// layout, the weight [out, in, k, k, k], the optional bias [out], the kernel/stride/padding
// bounds and the output's spatial size (Conv3dShape::out_size) are checked here, once for every
// backend, before do_conv3d* runs.
#include <string>
#include <vector>

#include "models/ops/op_checks.h"
#include "models/ops/volume_ops.h"

namespace sb {

using namespace checks;

namespace {

// "[2,3,4]", as Tensor::shape_string writes shapes.
std::string dims_text(const std::vector<int64_t>& dims) {
  return Tensor(dims, DType::f32, nullptr).shape_string();
}

// [N, C, d, h, w] (ncdhw) or [N, d, h, w, C] (ndhwc).
std::vector<int64_t> volume_shape(const Conv3dShape& s, int64_t channels, int64_t d, int64_t h,
                                  int64_t w) {
  if (s.layout == Layout3d::ncdhw) return {s.batch, channels, d, h, w};
  return {s.batch, d, h, w, channels};
}

void expect_volume(Op op, const char* what, const Tensor& t, const std::vector<int64_t>& want,
                   Layout3d layout) {
  expect_f32(op, what, t);
  if (t.shape() != want)
    fail(op, describe(what, t) + " is not " + layout_text(layout) + " = " + dims_text(want));
}

// The shape's own bounds: counts, kernel, stride, padding, and an output of at least one voxel
// on every axis. Returns the output's spatial size.
std::vector<int64_t> expect_conv3d_shape(Op op, const Conv3dShape& s) {
  if (s.layout != Layout3d::ncdhw && s.layout != Layout3d::ndhwc)
    fail(op, "unknown layout " + text(static_cast<int>(s.layout)));
  if (s.batch < 0) fail(op, "batch = " + text(s.batch) + " must be >= 0");
  if (s.in_channels <= 0 || s.out_channels <= 0)
    fail(op, "channels in = " + text(s.in_channels) + ", out = " + text(s.out_channels) +
                 " must be positive");
  if (s.d <= 0 || s.h <= 0 || s.w <= 0)
    fail(op, "input size " + text(s.d) + "x" + text(s.h) + "x" + text(s.w) + " must be positive");
  if (s.kernel <= 0) fail(op, "kernel = " + text(s.kernel) + " must be positive");
  if (s.stride <= 0) fail(op, "stride = " + text(s.stride) + " must be positive");
  if (s.padding < 0 || s.padding >= s.kernel)
    fail(op, "padding = " + text(s.padding) + " must be in [0, kernel = " + text(s.kernel) + ")");
  for (int64_t n : {s.d, s.h, s.w})
    if (n + 2 * s.padding < s.kernel)
      fail(op, "input size " + text(s.d) + "x" + text(s.h) + "x" + text(s.w) + " with padding " +
                   text(s.padding) + " is smaller than kernel " + text(s.kernel));
  return {s.out_size(s.d, false), s.out_size(s.h, false), s.out_size(s.w, false)};
}

// A reduced precision must be one this backend has (its unsupported_reason is empty); bf16 also
// where it has tf32, whose products keep more mantissa than bf16's: OpenCL on NVIDIA computes
// bf16 convolutions in bf16 where its kernels take the shape, else in tf32.
void expect_precision(Op op, const Conv3dShape& s, const CoreOps& be) {
  if (s.precision == Precision::f32) return;
  if (s.precision == Precision::bf16 && be.unsupported_reason(Precision::tf32).empty()) return;
  if (const std::string why = be.unsupported_reason(s.precision); !why.empty())
    fail(op, std::string("precision ") + precision_name(s.precision) + ": " + why);
}

std::vector<int64_t> weight_shape(const Conv3dShape& s) {
  return {s.out_channels, s.in_channels, s.kernel, s.kernel, s.kernel};
}

void expect_weight(Op op, const char* what, const Tensor& w, const Conv3dShape& s) {
  expect_f32(op, what, w);
  if (w.shape() != weight_shape(s))
    fail(op, describe(what, w) + " is not [out, in, k, k, k] = " + dims_text(weight_shape(s)));
}

}  // namespace

void VolumeOps::conv3d(const Conv3dShape& s, const Tensor& x, const Tensor& w, const Tensor* bias,
                       Tensor& y) {
  const Op op = Op::conv3d;
  const std::vector<int64_t> o = expect_conv3d_shape(op, s);
  expect_precision(op, s, *this);
  expect_volume(op, "input", x, volume_shape(s, s.in_channels, s.d, s.h, s.w), s.layout);
  expect_weight(op, "weight", w, s);
  expect_volume(op, "output", y, volume_shape(s, s.out_channels, o[0], o[1], o[2]), s.layout);
  if (bias != nullptr) {
    expect_f32_numel(op, "bias", *bias, s.out_channels, "[out]");
    expect_distinct(op, "the output", y, "bias", *bias);
  }
  expect_distinct(op, "the output", y, "the input", x);
  expect_distinct(op, "the output", y, "the weight", w);
  if (y.numel() == 0) return;
  do_conv3d(s, x, w, bias, y);
}

void VolumeOps::conv3d_backward_data(const Conv3dShape& s, const Tensor& dy, const Tensor& w,
                                     Tensor& dx) {
  const Op op = Op::conv3d_backward_data;
  const std::vector<int64_t> o = expect_conv3d_shape(op, s);
  expect_precision(op, s, *this);
  expect_volume(op, "dy", dy, volume_shape(s, s.out_channels, o[0], o[1], o[2]), s.layout);
  expect_weight(op, "weight", w, s);
  expect_volume(op, "dx", dx, volume_shape(s, s.in_channels, s.d, s.h, s.w), s.layout);
  expect_distinct(op, "dx", dx, "dy", dy);
  expect_distinct(op, "dx", dx, "the weight", w);
  if (dx.numel() == 0) return;
  do_conv3d_backward_data(s, dy, w, dx);
}

void VolumeOps::conv3d_backward_weights(const Conv3dShape& s, const Tensor& x, const Tensor& dy,
                                        Tensor& dw, Tensor* dbias) {
  const Op op = Op::conv3d_backward_weights;
  const std::vector<int64_t> o = expect_conv3d_shape(op, s);
  expect_precision(op, s, *this);
  expect_volume(op, "input", x, volume_shape(s, s.in_channels, s.d, s.h, s.w), s.layout);
  expect_volume(op, "dy", dy, volume_shape(s, s.out_channels, o[0], o[1], o[2]), s.layout);
  expect_weight(op, "dw", dw, s);
  expect_weight_gradients(op, x, dy, dw, dbias, s.out_channels);
  if (s.batch == 0) {  // no samples: the gradients are empty sums
    fill(dw, 0.0f);
    if (dbias != nullptr) fill(*dbias, 0.0f);
    return;
  }
  do_conv3d_backward_weights(s, x, dy, dw, dbias);
}

}  // namespace sb
