// Narrow convolutions (issue 27): channels-last calls at a reduced precision with one input or
// one output channel run on kernels/conv3d_narrow.cl in fp32, each pass reading and writing its
// tensors once, instead of a GEMM whose K (taps x 1) or N (1) leaves the tiles nearly empty.
// fp32 stage-0 calls keep their library path; STAGEBENCH_CONV_NARROW=igemm keeps every call on
// the path it took before (to time the two in one session).
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

bool conv_narrow_requested() {
  const char* env = std::getenv("STAGEBENCH_CONV_NARROW");
  const std::string v = env ? env : "";
  if (v.empty() || v == "direct") return true;
  if (v == "igemm") return false;
  throw std::invalid_argument("STAGEBENCH_CONV_NARROW must be direct or igemm, not '" + v + "'");
}

namespace {

constexpr size_t kNarrowGroup = 64;
constexpr int64_t kNarrowDwGroup = 256;  // NARROW_DW_GROUP in conv3d_narrow.cl
// Work-groups the weight gradient's rows are split over: several waves of an H200's 132
// multiprocessors, each slice still thousands of rows at DynUNet's 2M.
constexpr int64_t kNarrowDwSlots = 1024;

// At most 64 (out, in) channel pairs: a weight-gradient work-group then has at least four row
// lanes per pair; the forward kernel's loop over in channels stays short.
bool narrow(const Conv3dShape& s) {
  return s.layout == Layout3d::ndhwc && s.precision != Precision::f32 &&
         (s.in_channels == 1 || s.out_channels == 1) && s.in_channels * s.out_channels <= 64 &&
         (s.kernel == 1 || s.kernel == 3);
}

}  // namespace

bool OpenCLBackend::conv3d_narrow(const Conv3dShape& s, const Tensor& x, const Tensor& w,
                                  const Tensor* bias, Tensor& y) {
  if (!conv_narrow_ || !narrow(s) || x.dtype() != DType::f32) return false;
  const int64_t od = s.out_size(s.d, false), oh = s.out_size(s.h, false),
                ow = s.out_size(s.w, false), taps = int64_t{s.kernel} * s.kernel * s.kernel;
  launch("conv3d_narrow",
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
  launch("conv3d_narrow",
         cl::NDRange(round_up(s.w * s.in_channels, kNarrowGroup), static_cast<size_t>(s.h),
                     static_cast<size_t>(s.batch * s.d)),
         cl::NDRange(kNarrowGroup, 1, 1), dy, w, none, 0, s.out_channels, s.in_channels, od, oh, ow,
         s.kernel, 1, s.kernel - 1 - s.padding, s.d, s.h, s.w, taps, s.in_channels * taps, 1, dx);
  kernel_log_.gemm("fp32 conv3d-narrow-dx");
  return true;
}

bool OpenCLBackend::conv3d_backward_weights_narrow(const Conv3dShape& s, const Tensor& x,
                                                   const Tensor& dy, Tensor& dw, Tensor* dbias) {
  if (!conv_narrow_ || !narrow(s) || x.dtype() != DType::f32 || dy.dtype() != DType::f32)
    return false;
  const int64_t od = s.out_size(s.d, false), oh = s.out_size(s.h, false),
                ow = s.out_size(s.w, false), taps = int64_t{s.kernel} * s.kernel * s.kernel;
  const int64_t rows = s.batch * od * oh * ow, n_w = s.out_channels * s.in_channels * taps;
  const int64_t total = n_w + s.out_channels;
  const int64_t slice =
      std::max<int64_t>(kNarrowDwGroup, (rows + kNarrowDwSlots - 1) / kNarrowDwSlots);
  const int64_t slots = (rows + slice - 1) / slice;
  Tensor partial = empty({slots, total});
  launch(s.kernel == 3 ? "conv3d_narrow_dw_k3" : "conv3d_narrow_dw_k1",
         cl::NDRange(static_cast<size_t>(slots * kNarrowDwGroup)),
         cl::NDRange(static_cast<size_t>(kNarrowDwGroup)), x, dy, s.in_channels, s.out_channels,
         s.d, s.h, s.w, s.stride, s.padding, od, oh, ow, to_cl_int(rows, "conv3d dW rows"),
         to_cl_int(slice, "conv3d dW slice"), partial);
  launch("conv3d_narrow_dw_sum", cl::NDRange(round_up(total, 256)), cl::NDRange(256), partial,
         to_cl_int(slots, "conv3d dW slots"), to_cl_int(n_w, "conv3d dW size"),
         to_cl_int(total, "conv3d dW outputs"), dw, dbias, dbias ? 1 : 0);
  kernel_log_.gemm("fp32 conv3d-narrow-dw");
  return true;
}

}  // namespace sb
