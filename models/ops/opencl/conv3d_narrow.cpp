// Narrow convolutions (issue 27): channels-last calls at a reduced precision with one input or
// one output channel run on kernels/conv3d_narrow.cl in fp32, each pass reading and writing its
// tensors once, instead of a GEMM whose K (taps x 1) or N (1) leaves the tiles nearly empty.
// fp32 stage-0 calls keep their library path; STAGEBENCH_CONV_NARROW=igemm keeps every call on
// the path it took before (to time the two in one session); =v1 runs the narrow kernels of
// results/h200/gpu27b-2026-11-28 (the 3^3 one-channel weight gradient on the implicit GEMM, the
// 3^3 one-channel forward an output voxel an item), the earlier round of the default's; planes
// (the default) takes the 3^3 one-channel weight gradient on conv3d_narrow_dw_k3_planes, direct
// on conv3d_narrow_dw_k3 (the same bits; 378.8 against 409.9 us a call on an H200,
// results/h200/dyn34-2026-11-29/narrow/narrow-dw.txt).
#include <algorithm>
#include <string>

#include "models/ops/knobs.h"
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

namespace {

enum class ConvNarrow : uint8_t { planes, direct, v1, igemm };

ConvNarrow conv_narrow_setting() {
  using enum ConvNarrow;
  return read_knob("STAGEBENCH_CONV_NARROW", planes,
                   {{"planes", planes}, {"direct", direct}, {"v1", v1}, {"igemm", igemm}});
}

}  // namespace

bool conv_narrow_requested() {
  return conv_narrow_setting() != ConvNarrow::igemm;
}
bool conv_narrow_v2_requested() {
  const ConvNarrow v = conv_narrow_setting();
  return v == ConvNarrow::direct || v == ConvNarrow::planes;
}
bool OpenCLBackend::conv_narrow_dw_planes_requested() {
  return conv_narrow_setting() == ConvNarrow::planes;
}

namespace {

constexpr size_t kNarrowGroup = 64;
constexpr size_t kNarrowRow = 64;        // NARROW_ROW in conv3d_narrow.cl
constexpr int64_t kNarrowDwGroup = 256;  // NARROW_DW_GROUP in conv3d_narrow.cl
// Work-groups the weight gradient's rows are split over: several waves of an H200's 132
// multiprocessors, each slice still thousands of rows at DynUNet's 2M.
constexpr int64_t kNarrowDwSlots = 1024;
// The 3^3 one-channel weight gradient's work-groups: (64, 4) items holding 112 sums each, about
// two resident a multiprocessor, so one wave of an H200's 132 (DynUNet: 124 row segments each).
constexpr int64_t kNarrowDw3Slots = 264;
constexpr int64_t kNarrowDw3Lanes = 64;  // NARROW_DW3_LANES in conv3d_narrow.cl

// At most 64 (out, in) channel pairs: a weight-gradient work-group then has at least four row
// lanes per pair; the forward kernel's loop over in channels stays short.
bool narrow(const Conv3dShape& s) {
  return s.layout == Layout3d::ndhwc && s.precision != Precision::f32 &&
         (s.in_channels == 1 || s.out_channels == 1) && s.in_channels * s.out_channels <= 64 &&
         (s.kernel == 1 || s.kernel == 3);
}

}  // namespace

// kernels/conv3d_narrow.cl's one-input-channel kernel: `in` [N, D, H, W, 1] to `out`
// [N, OD, OH, OW, co], the weight w_out_step floats an output channel, taps reversed with flip.
void OpenCLBackend::launch_narrow_c1(int ks, const Tensor& in, const Tensor& w, const Tensor* bias,
                                     int64_t co, int64_t n, int64_t d, int64_t h, int64_t wd,
                                     int stride, int pad, int64_t od, int64_t oh, int64_t ow,
                                     int64_t w_out_step, bool flip, Tensor& out) {
  if (ks == 3 && stride == 1 && co <= 16 && conv_narrow_v2_) {  // four output rows an item
    launch("conv3d_narrow_rows4_k3",
           cl::NDRange(round_up(ow, kNarrowRow), static_cast<size_t>((oh + 3) / 4),
                       static_cast<size_t>(n * od)),
           cl::NDRange(kNarrowRow, 1, 1), in, w, bias, bias ? 1 : 0, co, d, h, wd, pad, od, oh, ow,
           w_out_step, flip ? 1 : 0, out);
    return;
  }
  launch(
      ks == 3 ? "conv3d_narrow_c1_k3" : "conv3d_narrow_c1_k1",
      cl::NDRange(round_up(ow, kNarrowRow), static_cast<size_t>(oh), static_cast<size_t>(n * od)),
      cl::NDRange(kNarrowRow, 1, 1), in, w, bias, bias ? 1 : 0, co, d, h, wd, stride, pad, od, oh,
      ow, w_out_step, flip ? 1 : 0, out);
}

bool OpenCLBackend::conv3d_narrow(const Conv3dShape& s, const Tensor& x, const Tensor& w,
                                  const Tensor* bias, Tensor& y) {
  if (!conv_narrow_ || !narrow(s) || x.dtype() != DType::f32) return false;
  const int64_t od = s.out_size(s.d, false), oh = s.out_size(s.h, false),
                ow = s.out_size(s.w, false), taps = int64_t{s.kernel} * s.kernel * s.kernel;
  if (s.in_channels == 1) {
    launch_narrow_c1(s.kernel, x, w, bias, s.out_channels, s.batch, s.d, s.h, s.w, s.stride,
                     s.padding, od, oh, ow, taps, false, y);
    kernel_log_.gemm("fp32 conv3d-narrow");
    return true;
  }
  launch("conv3d_narrow_any",
         cl::NDRange(round_up(ow * s.out_channels, kNarrowGroup), static_cast<size_t>(oh),
                     static_cast<size_t>(s.batch * od)),
         cl::NDRange(kNarrowGroup, 1, 1), x, w, bias, bias ? 1 : 0, s.in_channels, s.out_channels,
         s.d, s.h, s.w, s.kernel, s.stride, s.padding, od, oh, ow, s.in_channels * taps, taps, 0,
         y);
  kernel_log_.gemm("fp32 conv3d-narrow");
  return true;
}

// Stride 1 only: the data gradient is then the stride-1 convolution of dy with the weight
// flipped, in and out channels swapped, padding k - 1 - p (as conv3d_bwd_igemm.cpp's).
bool OpenCLBackend::conv3d_backward_data_narrow(const Conv3dShape& s, const Tensor& dy,
                                                const Tensor& w, Tensor& dx) {
  if (!conv_narrow_ || !narrow(s) || s.stride != 1 || s.padding > s.kernel - 1 ||
      dy.dtype() != DType::f32)
    return false;
  const int64_t od = s.out_size(s.d, false), oh = s.out_size(s.h, false),
                ow = s.out_size(s.w, false), taps = int64_t{s.kernel} * s.kernel * s.kernel;
  const Tensor* none = nullptr;
  if (s.out_channels == 1) {  // dy's one channel
    launch_narrow_c1(s.kernel, dy, w, none, s.in_channels, s.batch, od, oh, ow, 1,
                     s.kernel - 1 - s.padding, s.d, s.h, s.w, taps, true, dx);
    kernel_log_.gemm("fp32 conv3d-narrow-dx");
    return true;
  }
  launch("conv3d_narrow_any",
         cl::NDRange(round_up(s.w * s.in_channels, kNarrowGroup), static_cast<size_t>(s.h),
                     static_cast<size_t>(s.batch * s.d)),
         cl::NDRange(kNarrowGroup, 1, 1), dy, w, none, 0, s.out_channels, s.in_channels, od, oh, ow,
         s.kernel, 1, s.kernel - 1 - s.padding, s.d, s.h, s.w, taps, s.in_channels * taps, 1, dx);
  kernel_log_.gemm("fp32 conv3d-narrow-dx");
  return true;
}

bool OpenCLBackend::conv3d_backward_weights_narrow(const Conv3dShape& s, const Tensor& x,
                                                   const Tensor& dy, Tensor& dw, Tensor* dbias) {
  // 1^3, and 3^3 from one input channel into at most 16 (conv3d_narrow_dw_k3's four channels a
  // item, four items a voxel); other 3^3 ones stay on the GEMM paths (the general kernel's
  // (row, channel) items ran 1.05 ms on an H200, the implicit GEMM's 0.46: gpu27b's call1/).
  const bool dw3 = s.kernel == 3 && s.in_channels == 1 && s.out_channels <= 16;
  if (!conv_narrow_ || !narrow(s) || (s.kernel != 1 && !(dw3 && conv_narrow_v2_)) ||
      x.dtype() != DType::f32 || dy.dtype() != DType::f32)
    return false;
  const int64_t od = s.out_size(s.d, false), oh = s.out_size(s.h, false),
                ow = s.out_size(s.w, false), taps = int64_t{s.kernel} * s.kernel * s.kernel;
  const int64_t rows = s.batch * od * oh * ow, n_w = s.out_channels * s.in_channels * taps;
  const int64_t total = n_w + s.out_channels;
  // Each slot's partial weight (and bias) gradient, summed into dW in slot order.
  auto sum_partials = [&](const Tensor& partial, int64_t slots) {
    launch("conv3d_narrow_dw_sum", cl::NDRange(round_up(total, 256)), cl::NDRange(256), partial,
           to_cl_int(slots, "conv3d dW slots"), to_cl_int(n_w, "conv3d dW size"),
           to_cl_int(total, "conv3d dW outputs"), dw, dbias, dbias ? 1 : 0);
    kernel_log_.gemm("fp32 conv3d-narrow-dw");
  };
  if (s.kernel == 3) {
    const int64_t segs = s.batch * od * oh * ((ow + kNarrowDw3Lanes - 1) / kNarrowDw3Lanes);
    // at least 16 segments a work-group: each ends in 28 rounds of local sums, which made the
    // op table's 132-segment case take 786 s on Oclgrind one a work-group (DynUNet's: 124)
    const int64_t slice = std::max<int64_t>(16, (segs + kNarrowDw3Slots - 1) / kNarrowDw3Slots);
    const int64_t slots = (segs + slice - 1) / slice;
    Tensor partial = empty({slots, total});
    // planes: a third work-group dimension over the tap planes (the same sums and bits)
    const size_t planes = conv_narrow_dw_planes_ ? 3 : 1;
    launch(planes > 1 ? "conv3d_narrow_dw_k3_planes" : "conv3d_narrow_dw_k3",
           cl::NDRange(static_cast<size_t>(slots * kNarrowDw3Lanes), 4, planes),
           cl::NDRange(static_cast<size_t>(kNarrowDw3Lanes), 4, planes), x, dy, s.out_channels, s.d,
           s.h, s.w, s.stride, s.padding, od, oh, ow, to_cl_int(segs, "conv3d dW segments"),
           to_cl_int(slice, "conv3d dW slice"), partial);
    sum_partials(partial, slots);
    return true;
  }
  const int64_t slice =
      std::max<int64_t>(kNarrowDwGroup, (rows + kNarrowDwSlots - 1) / kNarrowDwSlots);
  const int64_t slots = (rows + slice - 1) / slice;
  Tensor partial = empty({slots, total});
  launch("conv3d_narrow_dw_k1", cl::NDRange(static_cast<size_t>(slots * kNarrowDwGroup)),
         cl::NDRange(static_cast<size_t>(kNarrowDwGroup)), x, dy, s.in_channels, s.out_channels,
         s.d, s.h, s.w, s.stride, s.padding, od, oh, ow, to_cl_int(rows, "conv3d dW rows"),
         to_cl_int(slice, "conv3d dW slice"), partial);
  sum_partials(partial, slots);
  return true;
}

}  // namespace sb
