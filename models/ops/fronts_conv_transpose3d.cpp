// The fronts of PyTorch's ConvTranspose3d and its two backward ops (volume_ops.h):
// every argument validated here, once for every backend, then the backend's do_<op>.
//
// Shapes: activations are rank-5 tensors in the shape's layout, [N, C, d, h, w] (ncdhw) or
// [N, d, h, w, C] (ndhwc); x has in_channels at the input size (d, h, w), y has out_channels at
// the output size out_size(n, true) = (n - 1) stride - 2 padding + kernel on each axis. Weights
// are PyTorch's [in, out, k, k, k] whatever the layout; bias and dbias [out] (either may be null).
#include <string>
#include <utility>

#include "models/ops/op_checks.h"
#include "models/ops/volume_ops.h"

namespace sb {

using namespace checks;

namespace {

// The shape itself: positive kernel and stride, padding in [0, kernel), positive channels and
// input size, batch >= 0, a positive output size on every axis. Precision f32, or bf16 where
// conv3d takes it (the backend has bf16 or tf32): what the products may be computed in; a
// backend without a bf16 transposed kernel computes in f32 (OpenCL has one for channels-last
// k2 s2 on NVIDIA, conv_transpose3d_igemm.cpp).
void expect_transposed_shape(Op op, const Conv3dShape& s, const CoreOps& be) {
  if (s.layout != Layout3d::ncdhw && s.layout != Layout3d::ndhwc)
    fail(op, "unknown layout " + text(static_cast<int>(s.layout)));
  const bool bf16_ok =
      s.precision == Precision::bf16 && (be.unsupported_reason(Precision::tf32).empty() ||
                                         be.unsupported_reason(Precision::bf16).empty());
  if (s.precision != Precision::f32 && !bf16_ok)
    fail(op, std::string("precision ") + precision_name(s.precision) +
                 ": transposed convolutions compute in f32, or bf16 where the backend has it");
  if (s.kernel <= 0) fail(op, "kernel = " + text(s.kernel) + " must be positive");
  if (s.stride <= 0) fail(op, "stride = " + text(s.stride) + " must be positive");
  if (s.padding < 0 || s.padding >= s.kernel)
    fail(op, "padding = " + text(s.padding) + " must be in [0, kernel = " + text(s.kernel) + ")");
  if (s.batch < 0) fail(op, "batch = " + text(s.batch) + " must be >= 0");
  if (s.in_channels <= 0 || s.out_channels <= 0)
    fail(op, "channels in = " + text(s.in_channels) + ", out = " + text(s.out_channels) +
                 " must be positive");
  const int64_t sizes[] = {s.d, s.h, s.w};
  for (int64_t n : sizes) {
    if (n <= 0)
      fail(op, "input size " + text(s.d) + "x" + text(s.h) + "x" + text(s.w) + " must be positive");
    if (s.out_size(n, true) <= 0)
      fail(op, "output size (" + text(n) + " - 1) * stride " + text(s.stride) + " - 2 * padding " +
                   text(s.padding) + " + kernel " + text(s.kernel) + " = " +
                   text(s.out_size(n, true)) + " must be positive");
  }
}

// t is exactly the rank-5 activation of `channels` channels at size (d, h, w) in s.layout.
void expect_volume(Op op, const char* what, const Tensor& t, const Conv3dShape& s, int64_t channels,
                   int64_t d, int64_t h, int64_t w) {
  expect_f32(op, what, t);
  const std::vector<int64_t> want = s.layout == Layout3d::ndhwc
                                        ? std::vector<int64_t>{s.batch, d, h, w, channels}
                                        : std::vector<int64_t>{s.batch, channels, d, h, w};
  if (t.shape() != want)
    fail(op, describe(what, t) + " is not " + layout_text(s.layout) + " = " +
                 Tensor(want, DType::f32, nullptr).shape_string());
}

void expect_input(Op op, const char* what, const Tensor& t, const Conv3dShape& s) {
  expect_volume(op, what, t, s, s.in_channels, s.d, s.h, s.w);
}

void expect_output(Op op, const char* what, const Tensor& t, const Conv3dShape& s) {
  expect_volume(op, what, t, s, s.out_channels, s.out_size(s.d, true), s.out_size(s.h, true),
                s.out_size(s.w, true));
}

// [in, out, k, k, k] exactly.
void expect_transposed_weight(Op op, const char* what, const Tensor& t, const Conv3dShape& s) {
  expect_f32(op, what, t);
  const int64_t k = s.kernel;
  const std::vector<int64_t> want{s.in_channels, s.out_channels, k, k, k};
  if (t.shape() != want)
    fail(op, describe(what, t) + " is not [in, out, k, k, k] = " +
                 Tensor(want, DType::f32, nullptr).shape_string());
}

}  // namespace

void VolumeOps::conv_transpose3d(const Conv3dShape& s, const Tensor& x, const Tensor& w,
                                 const Tensor* bias, Tensor& y) {
  const Op op = Op::conv_transpose3d;
  expect_transposed_shape(op, s, *this);
  expect_input(op, "input", x, s);
  expect_transposed_weight(op, "weight", w, s);
  if (bias != nullptr) expect_f32_numel(op, "bias", *bias, s.out_channels, "[out]");
  expect_output(op, "the output", y, s);
  if (bias != nullptr) expect_distinct(op, "the output", y, "bias", *bias);
  expect_distinct(op, "the output", y, "the input", x);
  expect_distinct(op, "the output", y, "the weight", w);
  if (y.numel() == 0) return;
  do_conv_transpose3d(s, x, w, bias, y);
}

void VolumeOps::conv_transpose3d_backward_data(const Conv3dShape& s, const Tensor& dy,
                                               const Tensor& w, Tensor& dx) {
  const Op op = Op::conv_transpose3d_backward_data;
  expect_transposed_shape(op, s, *this);
  expect_output(op, "dy", dy, s);
  expect_transposed_weight(op, "weight", w, s);
  expect_input(op, "dx", dx, s);
  expect_distinct(op, "dx", dx, "dy", dy);
  expect_distinct(op, "dx", dx, "the weight", w);
  if (dx.numel() == 0) return;
  do_conv_transpose3d_backward_data(s, dy, w, dx);
}

void VolumeOps::conv_transpose3d_backward_weights(const Conv3dShape& s, const Tensor& x,
                                                  const Tensor& dy, Tensor& dw, Tensor* dbias) {
  const Op op = Op::conv_transpose3d_backward_weights;
  expect_transposed_shape(op, s, *this);
  expect_input(op, "input", x, s);
  expect_output(op, "dy", dy, s);
  expect_transposed_weight(op, "dw", dw, s);
  expect_weight_gradients(op, x, dy, dw, dbias, s.out_channels);
  if (s.batch == 0) {  // no samples: the gradients are empty sums
    fill(dw, 0.0f);
    if (dbias != nullptr) fill(*dbias, 0.0f);
    return;
  }
  do_conv_transpose3d_backward_weights(s, x, dy, dw, dbias);
}

}  // namespace sb
