// conv3d's forward pass as an implicit GEMM on the tensor-core pipeline (issue 27; the kernel's
// header in kernels/conv3d_igemm.cl says why): gemm_pipe_body.cl compiled with narrow tiles and
// the A gather of conv3d_igemm.cl, in a program of its own built on first use, so that runs
// without such convolutions never compile it. tf32 reads the fp32 input as it is; f16 and bf16
// convert it to 2-byte values first (cp.async copies bytes). The weight is permuted to (tap,
// channel) order each call (out x 27 C floats, a few microseconds) and the bias is added in the
// epilogue.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <limits>
#include <vector>

#include "models/ops/opencl/kernel_sources.h"
#include "models/ops/knobs.h"
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

// A tile: bm x bn outputs, warps of (16 mi) x wn, 4 warps (128 items) in all. DynUNet's convs
// have 16 to 64 output channels: the GEMMs' 128- and 256-wide tiles would leave most of each
// mma idle, so a call takes the narrowest width that covers its channels and the faster of two
// heights, measured on its first call.
struct ConvTile {
  int bm, bn, mi, wn;
};
constexpr ConvTile kConvTiles[] = {{128, 16, 2, 16}, {256, 16, 4, 16}, {128, 32, 2, 32},
                                   {256, 32, 4, 32}, {128, 64, 2, 64}, {256, 64, 4, 64}};
constexpr size_t kConvThreads = 128;
constexpr const char* kConvLinesKernel = "conv3d_lines_bf16_16";
constexpr PipeKind kConvKinds[] = {PipeKind::tf32, PipeKind::f16};

const char* kind_name(PipeKind kind) {
  return kind == PipeKind::f16 ? "f16" : kind == PipeKind::bf16 ? "bf16" : "tf32";
}

// words: the tf32 gather of input channels that do not fill 16-byte chunks
// (conv3d_load_a_words).
// phases: the stride-2 data gradient's phases GEMM storing onto dx (conv3d_phase_store).
std::string tile_kernel(PipeKind kind, const ConvTile& t, bool words, bool phases = false) {
  return std::string("conv3d_igemm_") + kind_name(kind) + "_" + std::to_string(t.bm) + "x" +
         std::to_string(t.bn) + (words ? "_words" : "") + (phases ? "_phases" : "");
}

std::string conv_variant(PipeKind kind, const ConvTile& t, bool words, bool phases = false) {
  auto n = [](int v) { return std::to_string(v); };
  const std::string load_a =
      words ? "conv3d_load_a_words(stage, (__global const uchar*)x, k0, C, D, H, W, ks, tid, "
              "PIPE_THREADS, CONV_ROWS, cv_base, cv_corner)\n"
            : "conv3d_load_a(stage, (__global const uchar*)x, sizeof(PIPE_ELEM), k0, K, C, D, H, "
              "W, ks, tid, PIPE_THREADS, CONV_ROWS, cv_base, cv_corner)\n";
  const std::string store =
      phases ? ", int XD, int XH, int XW, int XO\n#define PIPE_STORE(c, bm, bn, threads, m0, n0, "
               "M, N, y, tid) conv3d_phase_store(c, bm, bn, threads, m0, n0, M, N, y, OD, OH, OW, "
               "XD, XH, XW, XO, bias, has_bias, tid)\n"
             : "\n";
  return "#define PIPE_NAME " + tile_kernel(kind, t, words, phases) + "\n#define PIPE_BN " +
         n(t.bn) + "\n#define PIPE_THREADS " + std::to_string(kConvThreads) +
         "\n#define PIPE_DOUBLE_BUFFER 0\n#define PIPE_TILE_M " + n(t.bm) + "\n#define PIPE_MI " +
         n(t.mi) + "\n#define PIPE_WN " + n(t.wn) + "\n" + pipe_operand_defines(kind) +
         "#define PIPE_ACC float\n#define CONV_ROWS (PIPE_TILE_M * 8 / PIPE_THREADS)\n"
         "#define PIPE_EXTRA_PARAMS , int C, int D, int H, int W, int ks, int stride, int pad, "
         "int OD, int OH, int OW" +
         store +
         "#define PIPE_SCALE_ARGS bias, 0.0f, 0\n"
         "#define PIPE_A_SETUP int cv_base[CONV_ROWS], cv_corner[CONV_ROWS]; "
         "conv3d_rows(m0, M, tid, PIPE_THREADS, CONV_ROWS, C, D, H, W, stride, pad, OD, OH, OW, "
         "cv_base, cv_corner);\n"
         "#define PIPE_LOAD_A(stage, k0) " +
         load_a + std::string(embedded_cl_source("gemm_pipe_body.cl")) +
         "\n#undef PIPE_NAME\n#undef PIPE_BN\n#undef PIPE_THREADS\n#undef PIPE_ELEM\n"
         "#undef PIPE_MMA\n#undef PIPE_FRAG\n#undef PIPE_ACC\n#undef PIPE_DOUBLE_BUFFER\n"
         "#undef PIPE_EXTRA_PARAMS\n#undef PIPE_SCALE_ARGS\n#undef CONV_ROWS\n#undef PIPE_STORE\n";
}

}  // namespace

// The weight gradient's kernels (kernels/conv3d_bwd_igemm.cl): tiles 16, 32 or 64 out channels
// high; "_wx" / "_wdy": input / output channels that do not fill 16-byte chunks, copied word by
// word.
std::string conv3d_dw_kernel_name(int bm, bool words_x, bool words_dy) {
  return "conv3d_dw_tf32_" + std::to_string(bm) + (words_x ? "_wx" : "") + (words_dy ? "_wdy" : "");
}

// The bf16 weight gradient's (kernels/conv3d_dw_bf16_nvidia.cl): tiles 16, 32 or 64 out channels
// high, in conv3d's bf16 program.
std::string conv3d_dw_bf16_kernel_name(int bm) {
  return "conv3d_dw_bf16_" + std::to_string(bm);
}

// The tap-staging bf16 weight gradients' (kernels/conv3d_dw_taps_bf16_nvidia.cl): one per in and
// out channel count, each 16 or 32, with the row ring or without.
std::string conv3d_dw_taps_kernel_name(int in_channels, int out_channels, bool ring) {
  return std::string(ring ? "conv3d_dw_taps_ring_bf16_" : "conv3d_dw_taps_bf16_") +
         std::to_string(in_channels) + "_" + std::to_string(out_channels);
}

namespace {

std::string conv_dw_variants() {
  std::string s;
  for (const int bm : {16, 32, 64})
    for (const bool wx : {false, true})
      for (const bool wdy : {false, true})
        s += "#define DW_NAME " + conv3d_dw_kernel_name(bm, wx, wdy) + "\n#define DW_BM " +
             std::to_string(bm) + "\n#define DW_WORDS_X " + (wx ? "1" : "0") +
             "\n#define DW_WORDS_DY " + (wdy ? "1" : "0") + "\n" +
             std::string(embedded_cl_source("conv3d_bwd_igemm.cl")) + "\n";
  return s;
}

std::string conv_common() {
  return cl_common_source() + "\n" + std::string(embedded_cl_source("gemm_mma_nvidia.cl")) + "\n" +
         std::string(embedded_cl_source("gemm_pipelined.cl")) + "\n" +
         std::string(embedded_cl_source("conv3d_igemm.cl")) + "\n";
}

// bf16's kernels in a program of their own: should a driver reject the bf16 forms of mma or
// cvt, that fails bf16 calls alone (DynUNet then computes in tf32), not every convolution.
std::string conv_bf16_source() {
  std::string s = conv_common() + std::string(embedded_cl_source("conv3d_bf16_nvidia.cl")) + "\n";
  for (const ConvTile& t : kConvTiles) s += conv_variant(PipeKind::bf16, t, false);
  for (const int bm : {16, 32, 64})
    s += "#define DWB_NAME " + conv3d_dw_bf16_kernel_name(bm) + "\n#define DWB_BM " +
         std::to_string(bm) + "\n" + std::string(embedded_cl_source("conv3d_dw_bf16_nvidia.cl")) +
         "\n";
  for (const bool ring : {false, true})
    for (const int c : {16, 32})
      for (const int co : {16, 32})
        s += "#define DWT_NAME " + conv3d_dw_taps_kernel_name(c, co, ring) + "\n#define DWT_C " +
             std::to_string(c) + "\n#define DWT_CO " + std::to_string(co) + "\n#define DWT_RING " +
             (ring ? "1" : "0") + "\n" +
             std::string(embedded_cl_source("conv3d_dw_taps_bf16_nvidia.cl")) + "\n";
  return s;
}

// The phase-store GEMMs in a program of their own, built only when a stride-2 bf16 data gradient
// runs: 64-wide tiles alone (its 8 x in-channel columns are 128 or more for DynUNet).
std::string conv_bf16_phases_source() {
  std::string s = conv_common() + std::string(embedded_cl_source("conv3d_bf16_nvidia.cl")) + "\n";
  for (const ConvTile& t : kConvTiles)
    if (t.bn == 64) s += conv_variant(PipeKind::bf16, t, false, true);
  return s;
}

// conv3d_lines_bf16_16 in a program of its own (its file's header says why).
std::string conv_lines_source() {
  return conv_common() + std::string(embedded_cl_source("conv3d_bf16_nvidia.cl")) + "\n" +
         std::string(embedded_cl_source("conv3d_lines_bf16_nvidia.cl")) + "\n";
}

std::string conv_source() {
  std::string s = conv_common();
  for (const PipeKind kind : kConvKinds)
    for (const ConvTile& t : kConvTiles) s += conv_variant(kind, t, false);
  for (const ConvTile& t : kConvTiles) s += conv_variant(PipeKind::tf32, t, true);
  s += conv_dw_variants();
  return s;
}

// K = taps x in channels, rounded up to whole 16-byte rows of the weight (a tf32 input with
// channels not a multiple of 4 gathers word by word, and its weight rows end in zeros).
int64_t padded_k(const Conv3dShape& s) {
  const int64_t k = s.in_channels * s.kernel * s.kernel * s.kernel;
  return (k + 3) / 4 * 4;
}

// STAGEBENCH_CONV_IGEMM_TILE: 128 or 256 restricts the measured choice to that tile height (to
// time the two against each other); unset or "": both are candidates.
int forced_tile_height() {
  return read_knob("STAGEBENCH_CONV_IGEMM_TILE", 0, {{"128", 128}, {"256", 256}});
}

int tile_width(int64_t out_channels) {
  return out_channels <= 16 ? 16 : out_channels <= 32 ? 32 : 64;
}

}  // namespace

void OpenCLBackend::add_conv_igemm_choices(
    std::vector<std::pair<std::string, std::string>>& out) const {
  for (const auto& [key, tile] : conv_igemm_tiles_)
    out.emplace_back("conv3d " + key, "implicit GEMM " + std::to_string(kConvTiles[tile].bm) + "x" +
                                          std::to_string(kConvTiles[tile].bn));
}

std::string OpenCLBackend::conv3d_implicit_unavailable(const Conv3dShape& s) const {
  ConvIgemmCall call;
  call.nvidia_mma = has_mma();
  call.reduced = s.precision == Precision::tf32 || s.precision == Precision::f16 ||
                 s.precision == Precision::bf16;
  call.channels_last = s.layout == Layout3d::ndhwc;
  call.element_bytes = s.precision == Precision::tf32 ? 4 : 2;
  call.in_channels = s.in_channels, call.d = s.d, call.h = s.h, call.w = s.w;
  call.padding = s.padding;
  return conv_igemm_unavailable(call, conv_igemm_knob_);
}

// The f16 GEMMs' path (wgmma_status_, set at construction), then conv3d's paths on devices with
// the mma.sync kernels (the backward ones: conv3d_bwd_igemm.cpp), and the forced ncdhw copies.
std::string OpenCLBackend::gemm_paths() const {
  std::string paths = wgmma_status_;
  const auto add = [&paths](const std::string& s) { paths += (paths.empty() ? "" : "; ") + s; };
  if (has_mma())
    add(conv_igemm_knob_ == ConvIgemmKnob::off
            ? "conv3d: vol2col + GEMM (implicit GEMM off: STAGEBENCH_CONV_IGEMM=off)"
            : "conv3d: implicit GEMM (mma.sync) for tf32/f16/bf16 ndhwc forward passes (f16, "
              "bf16: input channels a multiple of 8), data gradients (f16, bf16: output channels a "
              "multiple of 8) and weight gradients (bf16: input and output channels multiples of "
              "8, "
              "else tf32 products; split reduction, fixed-order sum), ncdhw calls of these kinds "
              "through channels-last copies, else "
              "vol2col + GEMM (bf16 columns at tf32)");
  if (has_mma() && conv_lines_pairs_ > 0)
    add("conv3d: bf16 3^3 stride-1 calls into 16 channels (W 32 or 64) by conv3d_lines_bf16_16, " +
        std::to_string(conv_lines_pairs_) + " line pairs a work-group (STAGEBENCH_CONV_LINES)");
  if (ncdhw_copies_)
    add("conv3d: every ncdhw forward call through channels-last copies "
        "(STAGEBENCH_CONV_NCDHW=channels_last)");
  return paths;
}

cl::Kernel& OpenCLBackend::conv_igemm_kernel(const std::string& name) {
  if (auto it = conv_igemm_kernels_.find(name); it != conv_igemm_kernels_.end()) return it->second;
  faults_.before_build(name);
  static const std::string source = conv_source();
  static const std::string bf16_source = conv_bf16_source();
  static const std::string phases_source = conv_bf16_phases_source();
  const char* options = "-cl-std=CL1.2 -DREDUCE_WG=256";
  if (name == kConvLinesKernel) {
    static const std::string lines_source = conv_lines_source();
    const cl::Program& program =
        runtime_->program("nvidia_conv3d_lines_bf16", lines_source, options);
    return conv_igemm_kernels_.emplace(name, cl::Kernel(program, name.c_str())).first->second;
  }
  const std::string which = conv_igemm_program_of(name);
  const cl::Program& program =
      runtime_->program(which,
                        which == "nvidia_conv3d_igemm_bf16_phases" ? phases_source
                        : which == "nvidia_conv3d_igemm_bf16"      ? bf16_source
                                                                   : source,
                        options);
  return conv_igemm_kernels_.emplace(name, cl::Kernel(program, name.c_str())).first->second;
}

bool OpenCLBackend::bf16_weight(const Conv3dShape& s) const {
  return s.precision == Precision::bf16 && bf16_producers_ != Bf16ProducersKnob::off;
}

void OpenCLBackend::to_bf16(const Tensor& x, Tensor& xb, int64_t count) {
  constexpr size_t kItems = 256;
  const size_t items = static_cast<size_t>((count + 3) / 4);
  cl::Kernel& k = conv_igemm_kernel("f32_to_bf16");
  set_args(k, 0, x, xb, to_cl_int(count, "bf16 conversion size"));
  faults_.before_launch("f32_to_bf16");
  events_.launch("f32_to_bf16", k, cl::NDRange(round_up(items, kItems)), cl::NDRange(kItems));
}

void OpenCLBackend::hold_read_only(const Tensor& t) {
  if (conv_bf16_reuse_knob_ == ConvBf16ReuseKnob::off || !t.defined()) return;
  Held& h = held_[t.storage()];
  ++h.holds;
  h.source = t;
  // The copy its last writer made (bf16_copies.cpp), if any: the notice ends here either way.
  if (const auto n = noticed_.find(t.storage()); n != noticed_.end()) {
    if (!h.bf16.defined() && n->second.bf16.numel() == t.numel()) h.bf16 = n->second.bf16;
    noticed_.erase(n);
  }
}

void OpenCLBackend::release_read_only(const Tensor& t) {
  const auto it = t.defined() ? held_.find(t.storage()) : held_.end();
  if (it != held_.end() && --it->second.holds == 0) held_.erase(it);
}

size_t OpenCLBackend::held_bf16_copies() const {
  size_t n = 0;
  for (const auto& [storage, h] : held_) n += h.bf16.defined() ? 1 : 0;
  return n;
}

const Tensor& OpenCLBackend::bf16_copy(const Tensor& x, Tensor& scratch) {
  const auto it = held_.find(x.storage());
  const bool keep = it != held_.end() && it->second.source.numel() == x.numel();
  if (keep && it->second.bf16.defined()) return it->second.bf16;
  Tensor& out = keep ? it->second.bf16 : scratch;
  out = do_empty({x.numel()}, DType::f16);  // (bf16 bits in an f16 buffer: the same size)
  to_bf16(x, out, x.numel());
  return out;
}

void OpenCLBackend::launch_conv_igemm(size_t tile, PipeKind kind, const Conv3dShape& s,
                                      const Tensor& x, const Tensor& w, const Tensor* bias,
                                      Tensor& y, const int64_t* phase_dx) {
  const ConvTile& t = kConvTiles[tile];
  const int64_t od = s.out_size(s.d, false), oh = s.out_size(s.h, false),
                ow = s.out_size(s.w, false);
  const int64_t m = s.batch * od * oh * ow, n = s.out_channels, k = padded_k(s);
  const bool words = kind == PipeKind::tf32 && s.in_channels % 4 != 0;
  const std::string name = tile_kernel(kind, t, words, phase_dx != nullptr);
  cl::Kernel& kernel = conv_igemm_kernel(name);
  const Tensor* none = nullptr;
  set_args(kernel, 0, x, w, bias, bias ? 1 : 0, 0, none, 0, to_cl_int(m, "conv3d rows"),
           to_cl_int(n, "conv3d out channels"), to_cl_int(k, "conv3d K"), y, 0, 0,
           to_cl_int(s.in_channels, "conv3d in channels"), to_cl_int(s.d, "d"), to_cl_int(s.h, "h"),
           to_cl_int(s.w, "w"), s.kernel, s.stride, s.padding, to_cl_int(od, "od"),
           to_cl_int(oh, "oh"), to_cl_int(ow, "ow"));
  if (phase_dx)  // the phase store's dx sizes and first plane, after the 23 arguments above
    set_args(kernel, 23, to_cl_int(phase_dx[0], "dx d"), to_cl_int(phase_dx[1], "dx h"),
             to_cl_int(phase_dx[2], "dx w"), to_cl_int(phase_dx[3], "phase origin"));
  const cl::NDRange global(round_up(n, t.bn) / t.bn * kConvThreads, round_up(m, t.bm) / t.bm);
  faults_.before_launch(name);
  events_.launch(name, kernel, global, cl::NDRange(kConvThreads, 1));
}

// The shapes conv3d_lines_bf16_16 takes (its header says why): DynUNet's 16-channel 64^3
// convolutions and their data gradients, and the 32 -> 16 one after its concatenation.
bool OpenCLBackend::conv_lines_fit(const Conv3dShape& s) const {
  return conv_lines_pairs_ > 0 && s.layout == Layout3d::ndhwc && s.kernel == 3 && s.stride == 1 &&
         s.padding == 1 && s.out_channels == 16 && s.in_channels % 16 == 0 && s.in_channels <= 64 &&
         s.w % 32 == 0 && s.w <= 64 && s.h % 2 == 0;
}

// Its program, built on the first call that fits; should the driver reject it, that call and
// every later one take the GEMM tiles (the reason on stderr: the figures then say so).
bool OpenCLBackend::conv_lines_built() {
  try {
    conv_igemm_kernel(kConvLinesKernel);
    return true;
  } catch (const std::exception& e) {
    std::cerr << "stagebench: " << kConvLinesKernel << " unavailable, the implicit GEMM's tiles "
              << "run instead: " << e.what() << "\n";
    conv_lines_pairs_ = 0;
    return false;
  }
}

// One launch per 16 input channels, the later ones adding to y in queue order (deterministic).
void OpenCLBackend::launch_conv_lines(const Conv3dShape& s, const Tensor& x, const Tensor& w,
                                      const Tensor* bias, Tensor& y) {
  const char* name = kConvLinesKernel;
  const int64_t pairs = s.batch * s.d * (s.h / 2), per = conv_lines_pairs_;
  const size_t groups = static_cast<size_t>((pairs + per - 1) / per);
  cl::Kernel& k = conv_igemm_kernel(name);
  const int cx = to_cl_int(s.in_channels, "conv3d in channels");
  for (int c0 = 0; c0 < cx; c0 += 16) {
    set_args(k, 0, x, cx, c0, w, to_cl_int(padded_k(s), "conv3d K"), bias, bias && c0 == 0 ? 1 : 0,
             c0 > 0 ? 1 : 0, to_cl_int(s.batch, "batch"), to_cl_int(s.d, "d"), to_cl_int(s.h, "h"),
             to_cl_int(s.w, "w"), static_cast<int>(per), y);
    faults_.before_launch(name);
    events_.launch(name, k, cl::NDRange(groups * kConvThreads), cl::NDRange(kConvThreads));
  }
}

void OpenCLBackend::conv3d_igemm(const Conv3dShape& s, const Tensor& x, const Tensor& w,
                                 const Tensor* bias, Tensor& y) {
  const int64_t taps = int64_t{s.kernel} * s.kernel * s.kernel;
  const int64_t k = padded_k(s), w_count = s.out_channels * k;
  const bool wb = bf16_weight(s);
  const std::string name = std::string("conv3d_weight_taps_first") + (wb ? "_bf16" : "");
  Tensor wt = do_empty({s.out_channels, k}, wb ? DType::f16 : DType::f32);
  cl::Kernel& permute = conv_igemm_kernel(name);
  set_args(permute, 0, w, to_cl_int(s.in_channels, "conv3d in channels"), to_cl_int(taps, "taps"),
           to_cl_int(k, "conv3d K"), to_cl_int(w_count, "conv3d weight size"), wt);
  faults_.before_launch(name);
  events_.launch(name, permute, cl::NDRange(round_up(w_count, 256)), cl::NDRange(256));
  conv3d_igemm_permuted(s, x, wt, bias, y, "conv3d-igemm");
}

// The GEMM itself, on a weight already in (tap, channel) order [out, padded_k(s)]: the forward
// pass above and the data gradient (conv3d_bwd_igemm.cpp, a convolution of dy) share it.
void OpenCLBackend::conv3d_igemm_permuted(const Conv3dShape& s, const Tensor& x, const Tensor& wt,
                                          const Tensor* bias, Tensor& y, const char* label,
                                          const Tensor* x_bf16, const int64_t* phase_dx) {
  const PipeKind kind = s.precision == Precision::f16    ? PipeKind::f16
                        : s.precision == Precision::bf16 ? PipeKind::bf16
                                                         : PipeKind::tf32;
  const int64_t k = padded_k(s), w_count = s.out_channels * k;
  const Tensor* xg = &x;
  const Tensor* wg = &wt;
  Tensor xh, wh;
  if (kind != PipeKind::tf32) {  // cp.async copies bytes: both operands become 2-byte first
    if (wt.dtype() != DType::f16) wh = do_empty({s.out_channels, k}, DType::f16);
    if (kind == PipeKind::f16) {
      xh = do_empty({x.numel()}, DType::f16);
      to_half(x, xh, x.numel());
      to_half(wt, wh, w_count);
      xg = &xh;
    } else {
      xg = x_bf16 ? x_bf16 : &bf16_copy(x, xh);  // or a held input's kept copy
      if (wt.dtype() == DType::f16)
        wh = wt;  // permuted straight to bf16 (bf16_weight)
      else
        to_bf16(wt, wh, w_count);
    }
    wg = &wh;
  }
  if (kind == PipeKind::bf16 && !phase_dx && conv_lines_fit(s) && conv_lines_built()) {
    kernel_log_.gemm(std::string("bf16 lines ") + label);
    launch_conv_lines(s, *xg, *wg, bias, y);
    return;
  }
  // The tile: the narrowest width over the output channels, the faster height measured on the
  // shape's first call (each candidate's best of 5 timed runs after an untimed one, in turns, as
  // pipe_tile does), into y, which the chosen kernel then overwrites.
  const std::string key = std::string(kind_name(kind)) + " " + std::to_string(s.batch) + "x" +
                          std::to_string(s.d) + "x" + std::to_string(s.h) + "x" +
                          std::to_string(s.w) + "x" + std::to_string(s.in_channels) + "->" +
                          std::to_string(s.out_channels) + " k" + std::to_string(s.kernel) + " s" +
                          std::to_string(s.stride) + (phase_dx ? " phase store" : "");
  auto chosen = conv_igemm_tiles_.find(key);
  if (chosen == conv_igemm_tiles_.end()) {
    std::vector<size_t> candidates;
    const int height = forced_tile_height();
    for (size_t i = 0; i < std::size(kConvTiles); ++i)
      if (kConvTiles[i].bn == tile_width(s.out_channels) && (!height || kConvTiles[i].bm == height))
        candidates.push_back(i);
    recorder_.refuse(
        "it times candidate tiles for a new convolution shape (autotuning waits "
        "for the device; record a step that has run before)");  // replay35
    constexpr int kTimedRuns = 5;
    cl::CommandQueue& queue = runtime_->queue();
    std::vector<double> fastest(candidates.size(), std::numeric_limits<double>::infinity());
    for (int run = 0; run <= kTimedRuns; ++run)
      for (size_t i = 0; i < candidates.size(); ++i) {
        queue.finish();
        const auto t0 = std::chrono::steady_clock::now();
        launch_conv_igemm(candidates[i], kind, s, *xg, *wg, bias, y, phase_dx);
        queue.finish();
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (run > 0) fastest[i] = std::min(fastest[i], seconds);
      }
    const size_t best =
        static_cast<size_t>(std::min_element(fastest.begin(), fastest.end()) - fastest.begin());
    chosen = conv_igemm_tiles_.emplace(key, candidates[best]).first;
  }
  kernel_log_.gemm(std::string(kind == PipeKind::f16 ? "fp16" : kind_name(kind)) + " " + label);
  launch_conv_igemm(chosen->second, kind, s, *xg, *wg, bias, y, phase_dx);
}

}  // namespace sb
