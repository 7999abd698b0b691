// conv3d's backward passes as implicit GEMMs on the tensor cores (issue 27; the kernels' header
// in kernels/conv3d_bwd_igemm.cl says why they are written here), for channels-last calls on
// devices with the mma.sync kernels; STAGEBENCH_CONV_IGEMM=off keeps both on vol2col/col2vol.
//   weights (tf32; bf16 with input and output channels multiples of 8 in bf16, other bf16 calls
//   at tf32): conv3d_dw_tf32_* / conv3d_dw_bf16_* gather x's taps straight into the GEMM with the
//     reduction over (batch, output voxel) split into slices, each work-group writing its
//     slice's partial dW tile into its own slot; conv3d_dw_sum adds the slots in slot order and
//     writes dW in the weight's [out, in, taps] layout. Deterministic: the same bits every run.
//     bf16 converts x and dy to bf16 first (cp.async copies bytes), as the forward pass does,
//     or reads the copies kept for tensors held read-only (Backend::hold_read_only).
//     dbias likewise: slices of rows, one work-group tree each, summed in slice order.
//   data (tf32, and f16/bf16 where dy's channels are a multiple of 8): a stride-1 forward
//   convolution
//     of dy (the forward's implicit GEMM, conv3d_igemm_permuted) with the weight flipped in all
//     three axes, in and out channels swapped, padding k - 1 - p. Stride s > 1: dy spread onto
//     the stride-1 grid first (zeros between, conv3d_dy_dilate), so only the taps that hit carry
//     non-zero terms; that multiplies zeros (s^3 times the useful work) but stays one GEMM. A
//     1^3 kernel with stride s: the GEMM on dy's own grid, then spread onto dx (zeros between).
#include <algorithm>
#include <cstdlib>
#include <string>

#include "models/ops/knobs.h"
#include "models/ops/opencl/kernel_sources.h"
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

std::string conv3d_dw_kernel_name(int bm, bool words_x, bool words_dy);  // conv3d_igemm.cpp
std::string conv3d_dw_bf16_kernel_name(int bm);                          // conv3d_igemm.cpp
std::string conv3d_dw_taps_kernel_name(int in_channels, int out_channels,
                                       bool ring);  // conv3d_igemm.cpp

namespace {

// Columns and threads a work-group; rows a K step: 32 fp32 (tf32 kernels), 64 bf16.
constexpr int64_t kDwBn = 128, kDwBkTf32 = 32, kDwBkBf16 = 64, kDwThreads = 128;

// STAGEBENCH_CONV_DW_GROUPS: the work-groups every weight gradient aims for, in place of
// `target` (probe sweeps); at least 1.
int64_t dw_groups_or(int64_t target) {
  return read_positive_count_knob("STAGEBENCH_CONV_DW_GROUPS", target);
}

// Work-groups the weight gradient aims for: several waves of the H100/H200's 132
// multiprocessors (2-3 resident work-groups each at these tiles' 60-80 KB of local memory), so
// the last wave's tail is small. STAGEBENCH_CONV_DW_GROUPS overrides it.
int64_t dw_target_groups() {
  return dw_groups_or(1056);
}

// Whether conv3d_dw_taps_bf16_* takes a bf16 weight gradient: 3^3, stride 1, padding 1 ("same"),
// 16 or 32 channels each side, output lines a multiple of 16 voxels long, at most 64.
bool dw_taps_fit(const Conv3dShape& s, int64_t ow) {
  const auto c16_32 = [](int64_t c) { return c == 16 || c == 32; };
  return s.kernel == 3 && s.stride == 1 && s.padding == 1 && c16_32(s.in_channels) &&
         c16_32(s.out_channels) && ow % 16 == 0 && ow <= 64;
}

// Work-groups the tap kernels aim for: one wave of 132 multiprocessors at what stays resident
// (NVIDIA's ptxas, results/h200/dyn31-2026-11-28/dyn/ptxas-dw.txt: at 16 in channels lines 63 KB
// of local memory and 132 registers, 3 resident, ring 44 KB and 128 registers, 4; at 32, 2-3).
// STAGEBENCH_CONV_DW_GROUPS overrides.
int64_t dw_taps_target_groups(int64_t in_channels, bool ring) {
  return dw_groups_or(in_channels == 16 ? (ring ? 528 : 396) : 264);
}

// How a stride > 1 data gradient meets dy (STAGEBENCH_CONV_DILATE, for before/after timelines
// in one call): phases (default) a 3^3 stride-2 padding-1 one by parity (conv3d_weight_phases,
// kernels/conv3d_bwd_igemm.cl), other shapes as bf16; bf16: dy spread onto x's grid four
// channels an item, written as bf16 bits where the GEMM is bf16 (else as vec4); vec4: four
// channels an item in fp32; scalar: an element an item.
enum class Dilate { phases, bf16, vec4, scalar };
Dilate dilate_mode() {
  using enum Dilate;
  return read_knob("STAGEBENCH_CONV_DILATE", phases,
                   {{"phases", phases}, {"bf16", bf16}, {"vec4", vec4}, {"scalar", scalar}});
}

// The shape of the stride-1 convolution of dy that gives conv3d's data gradient.
Conv3dShape data_gradient_shape(const Conv3dShape& s) {
  Conv3dShape t = s;
  t.in_channels = s.out_channels, t.out_channels = s.in_channels;
  t.stride = 1, t.padding = s.kernel - 1 - s.padding;
  if (s.stride == 1) {
    t.d = s.out_size(s.d, false), t.h = s.out_size(s.h, false), t.w = s.out_size(s.w, false);
  } else {  // dy spread onto a grid whose stride-1 convolution is exactly x's size
    t.d = s.d - s.kernel + 1 + 2 * s.padding;
    t.h = s.h - s.kernel + 1 + 2 * s.padding;
    t.w = s.w - s.kernel + 1 + 2 * s.padding;
  }
  return t;
}

}  // namespace

std::string OpenCLBackend::conv3d_backward_implicit_unavailable(const Conv3dShape& s,
                                                                bool weights) const {
  if (weights) {
    ConvIgemmCall call;
    call.nvidia_mma = has_mma();
    call.reduced = s.precision == Precision::tf32 || s.precision == Precision::f16 ||
                   s.precision == Precision::bf16;
    call.channels_last = s.layout == Layout3d::ndhwc;
    call.element_bytes = 4, call.in_channels = s.in_channels;  // the dW kernel has no such limits
    std::string why = conv_igemm_unavailable(call, conv_igemm_knob_);
    if (!why.empty()) return why;
    // bf16 calls whose channels the bf16 kernel cannot copy (conv_dw_bf16_unavailable) take
    // tf32's 10 bits, more than bf16 asks, from the fp32 x and dy as they are.
    if (s.precision == Precision::f16) return "f16 weight gradients (tf32 kernels only)";
    return "";
  }
  if (s.padding > s.kernel - 1) return "padding over kernel - 1";
  const Conv3dShape t = data_gradient_shape(s);
  if (s.batch * t.d * t.h * t.w * t.in_channels >= (int64_t{1} << 31))
    return "dy spread over 2^31 elements";
  return conv3d_implicit_unavailable(t);
}

bool OpenCLBackend::conv3d_backward_weights_igemm(const Conv3dShape& s, const Tensor& x,
                                                  const Tensor& dy, Tensor& dw, Tensor* dbias) {
  if (!conv3d_backward_implicit_unavailable(s, true).empty()) return false;
  const int64_t od = s.out_size(s.d, false), oh = s.out_size(s.h, false),
                ow = s.out_size(s.w, false);
  const int64_t taps = int64_t{s.kernel} * s.kernel * s.kernel;
  const int64_t rows = s.batch * od * oh * ow, co = s.out_channels, nn = s.in_channels * taps;
  const int bm = co <= 16 ? 16 : co <= 32 ? 32 : 64;
  const bool bf16 = s.precision == Precision::bf16 &&
                    conv_dw_bf16_unavailable(s.in_channels, co, conv_dw_bf16_knob_).empty();
  const ConvDwTaps taps_mode = conv_dw_taps_requested();
  const bool tap_kernel = bf16 && taps_mode != ConvDwTaps::off && dw_taps_fit(s, ow);
  const bool ring = taps_mode == ConvDwTaps::ring;
  const int64_t bk = bf16 ? kDwBkBf16 : kDwBkTf32;
  const int64_t n_tiles = (nn + kDwBn - 1) / kDwBn, m_tiles = (co + bm - 1) / bm;
  // Slices: enough work-groups for the target, each slice at least 8 K steps long, the slots at
  // most 2^25 floats (128 MiB).
  int64_t slices = (dw_target_groups() + n_tiles * m_tiles - 1) / (n_tiles * m_tiles);
  slices = std::clamp<int64_t>(slices, 1, std::max<int64_t>(1, rows / (8 * bk)));
  slices = std::min(slices, std::max<int64_t>(1, (int64_t{1} << 25) / (co * nn)));
  int64_t slice_len = round_up((rows + slices - 1) / slices, bk);
  // The tap kernel's slices are of output lines (b, oz, oy), its groups of 28 (tap, 16-channel)
  // units: one for 16 in channels, two for 32.
  const int64_t lines = s.batch * od * oh, t_groups = (s.in_channels / 16 * 27 + 27) / 28;
  if (tap_kernel) {
    slices = (dw_taps_target_groups(s.in_channels, ring) + t_groups - 1) / t_groups;
    slices = std::clamp<int64_t>(slices, 1, lines);
    slices = std::min(slices, std::max<int64_t>(1, (int64_t{1} << 25) / (co * nn)));
    slice_len = (lines + slices - 1) / slices;
  }
  slices = ((tap_kernel ? lines : rows) + slice_len - 1) / slice_len;
  Tensor partial = empty({slices, co * nn});
  const std::string name = tap_kernel ? conv3d_dw_taps_kernel_name(static_cast<int>(s.in_channels),
                                                                   static_cast<int>(co), ring)
                           : bf16     ? conv3d_dw_bf16_kernel_name(bm)
                                  : conv3d_dw_kernel_name(bm, s.in_channels % 4 != 0, co % 4 != 0);
  cl::Kernel& kernel = conv_igemm_kernel(name);
  const Tensor* xg = &x;
  const Tensor* dyg = &dy;
  Tensor xh, dyh;
  if (bf16) {  // bf16 bits, as the forward pass makes them (held tensors' kept copies)
    xg = &bf16_copy(x, xh);
    dyg = &bf16_copy(dy, dyh);
  }
  set_args(kernel, 0, *xg, *dyg, to_cl_int(tap_kernel ? lines : rows, "conv3d dW rows"),
           to_cl_int(slice_len, "conv3d dW slice"), to_cl_int(co, "conv3d out channels"),
           to_cl_int(nn, "conv3d dW columns"), to_cl_int(s.in_channels, "conv3d in channels"),
           to_cl_int(s.d, "d"), to_cl_int(s.h, "h"), to_cl_int(s.w, "w"), s.kernel, s.stride,
           s.padding, to_cl_int(od, "od"), to_cl_int(oh, "oh"), to_cl_int(ow, "ow"), partial);
  faults_.before_launch(name);
  events_.launch(
      name, kernel,
      cl::NDRange(static_cast<size_t>((tap_kernel ? t_groups : n_tiles) * kDwThreads),
                  static_cast<size_t>(tap_kernel ? 1 : m_tiles), static_cast<size_t>(slices)),
      cl::NDRange(kDwThreads, 1, 1));
  cl::Kernel& sum = conv_igemm_kernel("conv3d_dw_sum");
  const int64_t total = co * nn;
  set_args(sum, 0, partial, to_cl_int(slices, "conv3d dW slices"), to_cl_int(co, "out"),
           to_cl_int(s.in_channels, "in"), to_cl_int(taps, "taps"), dw);
  faults_.before_launch("conv3d_dw_sum");
  events_.launch("conv3d_dw_sum", sum, cl::NDRange(round_up(total, 256)), cl::NDRange(256));
  kernel_log_.gemm(tap_kernel ? (ring ? "bf16 conv3d-taps-ring-dw" : "bf16 conv3d-taps-dw")
                   : bf16     ? "bf16 conv3d-igemm-dw"
                              : "tf32 conv3d-igemm-dw");
  if (dbias == nullptr) return true;
  // dbias: slices of at least 4096 rows, at most 64 of them, summed in slice order.
  const int64_t b_slices = std::clamp<int64_t>(rows / 4096, 1, 64);
  const int64_t b_len = (rows + b_slices - 1) / b_slices;
  Tensor b_partial = empty({b_slices, co});
  cl::Kernel& slices_k = conv_igemm_kernel("conv3d_dbias_slices");
  set_args(slices_k, 0, dy, to_cl_int(co, "out"), to_cl_int(rows, "rows"),
           to_cl_int(b_len, "dbias slice"), b_partial);
  faults_.before_launch("conv3d_dbias_slices");
  events_.launch("conv3d_dbias_slices", slices_k,
                 cl::NDRange(static_cast<size_t>(co) * 256, static_cast<size_t>(b_slices)),
                 cl::NDRange(256, 1));
  set_args(sum, 0, b_partial, to_cl_int(b_slices, "dbias slices"), to_cl_int(co, "out"), 1, 1,
           *dbias);
  faults_.before_launch("conv3d_dw_sum");
  events_.launch("conv3d_dw_sum", sum, cl::NDRange(round_up(co, 256)), cl::NDRange(256));
  return true;
}

bool OpenCLBackend::conv3d_backward_data_igemm(const Conv3dShape& s, const Tensor& dy,
                                               const Tensor& w, Tensor& dx) {
  if (!conv3d_backward_implicit_unavailable(s, false).empty()) return false;
  if (s.kernel == 3 && s.stride == 2 && s.padding == 1 && dilate_mode() == Dilate::phases &&
      conv3d_backward_data_phases(s, dy, w, dx))
    return true;
  const Conv3dShape t = data_gradient_shape(s);
  const int64_t taps = int64_t{s.kernel} * s.kernel * s.kernel;
  const int64_t co = s.out_channels, ci = s.in_channels;
  const int64_t k_pad = (co * taps + 3) / 4 * 4, w_count = ci * k_pad;
  const bool wb = bf16_weight(s);
  const std::string flip_name = std::string("conv3d_weight_flip_taps_first") + (wb ? "_bf16" : "");
  Tensor wt = do_empty({ci, k_pad}, wb ? DType::f16 : DType::f32);
  cl::Kernel& flip = conv_igemm_kernel(flip_name);
  set_args(flip, 0, w, to_cl_int(co, "out"), to_cl_int(ci, "in"), to_cl_int(taps, "taps"),
           to_cl_int(k_pad, "K"), to_cl_int(w_count, "weight size"), wt);
  faults_.before_launch(flip_name);
  events_.launch(flip_name, flip, cl::NDRange(round_up(w_count, 256)), cl::NDRange(256));
  if (s.stride == 1) {
    conv3d_igemm_permuted(t, dy, wt, nullptr, dx, "conv3d-igemm-dx");
    return true;
  }
  const int64_t od = s.out_size(s.d, false), oh = s.out_size(s.h, false),
                ow = s.out_size(s.w, false);
  // `from` [N, fd, fh, fw, ch] onto the stride grid of `to` [N, td, th, tw, ch], zeros between.
  auto spread = [&](const Tensor& from, int64_t ch, int64_t fd, int64_t fh, int64_t fw, int64_t td,
                    int64_t th, int64_t tw, Tensor& to) {
    const int64_t total = s.batch * td * th * tw * ch;
    if (ch % 4 == 0 && dilate_mode() != Dilate::scalar) {
      cl::Kernel& dilate4 = conv_igemm_kernel("conv3d_dy_dilate4");
      set_args(dilate4, 0, from, to_cl_int(ch / 4, "channels"), to_cl_int(fd, "d"),
               to_cl_int(fh, "h"), to_cl_int(fw, "w"), s.stride, to_cl_int(td, "d"),
               to_cl_int(th, "h"), to_cl_int(tw, "w"), to);
      faults_.before_launch("conv3d_dy_dilate4");
      events_.launch("conv3d_dy_dilate4", dilate4,
                     cl::NDRange(round_up(ch / 4 * tw, 256), static_cast<size_t>(th),
                                 static_cast<size_t>(s.batch * td)),
                     cl::NDRange(256, 1, 1));
      return;
    }
    cl::Kernel& dilate = conv_igemm_kernel("conv3d_dy_dilate");
    set_args(dilate, 0, from, to_cl_int(ch, "channels"), to_cl_int(fd, "d"), to_cl_int(fh, "h"),
             to_cl_int(fw, "w"), s.stride, to_cl_int(td, "d"), to_cl_int(th, "h"),
             to_cl_int(tw, "w"), to_cl_int(total, "spread"), to);
    faults_.before_launch("conv3d_dy_dilate");
    events_.launch("conv3d_dy_dilate", dilate, cl::NDRange(round_up(total, 256)), cl::NDRange(256));
  };
  if (s.kernel == 1 && s.padding == 0) {
    // A 1^3 kernel touches only the stride grid's voxels: dy . W there, zeros elsewhere. The
    // spread-dy route below multiplied s^3 times as many zeros and ran 0.68-0.78x of vol2col
    // (results/h100/conv-bwd-2026-11-28/call1/).
    Conv3dShape u = t;
    u.d = od, u.h = oh, u.w = ow;
    Tensor on_grid = empty({s.batch * od * oh * ow * ci});
    conv3d_igemm_permuted(u, dy, wt, nullptr, on_grid, "conv3d-igemm-dx");
    spread(on_grid, ci, od, oh, ow, s.d, s.h, s.w, dx);
    return true;
  }
  const int64_t spread_count = s.batch * t.d * t.h * t.w * co;
  const Dilate mode = dilate_mode();
  if (s.precision == Precision::bf16 && co % 4 == 0 &&
      (mode == Dilate::bf16 || mode == Dilate::phases)) {
    Tensor spread_bf16 = do_empty({spread_count}, DType::f16);  // bf16 bits, as bf16_copy
    cl::Kernel& dilate = conv_igemm_kernel("conv3d_dy_dilate4_bf16");
    set_args(dilate, 0, dy, to_cl_int(co / 4, "channels"), to_cl_int(od, "d"), to_cl_int(oh, "h"),
             to_cl_int(ow, "w"), s.stride, to_cl_int(t.d, "d"), to_cl_int(t.h, "h"),
             to_cl_int(t.w, "w"), spread_bf16);
    faults_.before_launch("conv3d_dy_dilate4_bf16");
    events_.launch("conv3d_dy_dilate4_bf16", dilate,
                   cl::NDRange(round_up(co / 4 * t.w, 256), static_cast<size_t>(t.h),
                               static_cast<size_t>(s.batch * t.d)),
                   cl::NDRange(256, 1, 1));
    conv3d_igemm_permuted(t, spread_bf16, wt, nullptr, dx, "conv3d-igemm-dx", &spread_bf16);
    return true;
  }
  Tensor spread_dy = empty({spread_count});
  spread(dy, co, od, oh, ow, t.d, t.h, t.w, spread_dy);
  conv3d_igemm_permuted(t, spread_dy, wt, nullptr, dx, "conv3d-igemm-dx");
  return true;
}

// The 3^3 stride-2 padding-1 data gradient by phases (kernels/conv3d_bwd_igemm.cl says how):
// the weight of the 2^3 convolution of dy into 8 C parity channels, that convolution on the
// implicit GEMM (its output from plane -1: (OD + 1) planes an axis), then its output scattered
// onto dx. False, before any launch, where the implicit GEMM does not take that convolution.
bool OpenCLBackend::phase_store(const Conv3dShape& u) const {
  const int64_t ci = u.out_channels / 8;  // 8 ci >= 64: the 64-wide tiles' (the only variants)
  return phase_store_ && u.precision == Precision::bf16 && ci % 4 == 0 && ci >= 8;
}

bool OpenCLBackend::conv3d_backward_data_phases(const Conv3dShape& s, const Tensor& dy,
                                                const Tensor& w, Tensor& dx) {
  const int64_t co = s.out_channels, ci = s.in_channels;
  Conv3dShape u = s;
  u.in_channels = co, u.out_channels = 8 * ci;
  u.d = s.out_size(s.d, false), u.h = s.out_size(s.h, false), u.w = s.out_size(s.w, false);
  u.kernel = 2, u.stride = 1, u.padding = 1;
  if (!conv3d_implicit_unavailable(u).empty()) return false;
  const int64_t k_pad = (8 * co + 3) / 4 * 4, w_count = u.out_channels * k_pad;
  const bool wb = bf16_weight(s);
  const std::string name = std::string("conv3d_weight_phases") + (wb ? "_bf16" : "");
  Tensor wp = do_empty({u.out_channels, k_pad}, wb ? DType::f16 : DType::f32);
  cl::Kernel& phases = conv_igemm_kernel(name);
  set_args(phases, 0, w, to_cl_int(co, "out"), to_cl_int(ci, "in"), to_cl_int(k_pad, "K"),
           to_cl_int(w_count, "weight size"), wp);
  faults_.before_launch(name);
  events_.launch(name, phases, cl::NDRange(round_up(w_count, 256)), cl::NDRange(256));
  const int64_t pd = u.d + 1, ph = u.h + 1, pw = u.w + 1;
  if (phase_store(u)) {  // every dx voxel is some row's: the GEMM writes all of dx
    const int64_t sizes[] = {s.d, s.h, s.w, 1};  // rows from plane -1 (conv3d_phase_store)
    conv3d_igemm_permuted(u, dy, wp, nullptr, dx, "conv3d-igemm-dx", nullptr, sizes);
    return true;
  }
  Tensor y = empty({s.batch * pd * ph * pw * u.out_channels});
  conv3d_igemm_permuted(u, dy, wp, nullptr, y, "conv3d-igemm-dx");
  cl::Kernel& scatter = conv_igemm_kernel("conv3d_phase_scatter");
  set_args(scatter, 0, y, to_cl_int(ci, "in"), to_cl_int(pd, "d"), to_cl_int(ph, "h"),
           to_cl_int(pw, "w"), to_cl_int(s.d, "d"), to_cl_int(s.h, "h"), to_cl_int(s.w, "w"), dx);
  faults_.before_launch("conv3d_phase_scatter");
  events_.launch("conv3d_phase_scatter", scatter,
                 cl::NDRange(round_up(s.w * ci, 256), static_cast<size_t>(s.h),
                             static_cast<size_t>(s.batch * s.d)),
                 cl::NDRange(256, 1, 1));
  return true;
}

}  // namespace sb
