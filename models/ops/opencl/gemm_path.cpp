#include "models/ops/opencl/gemm_path.h"

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "models/ops/opencl/knobs.h"

namespace sb {

const char* gemm_path_name(GemmPath p) {
  return p == GemmPath::wgmma ? "wgmma" : "mma.sync";
}

namespace {

// The grammar the kernel-path knobs share: unset, empty, auto or on leave the choice to the
// device and the call; off forces the older path.
template <typename Knob>
Knob parse_auto_off(const char* variable, const char* value) {
  return parse_knob(variable, value, Knob::automatic,
                    {{"auto", Knob::automatic}, {"on", Knob::automatic}, {"off", Knob::off}});
}

}  // namespace

WgmmaKnob parse_wgmma_knob(const char* value) {
  return parse_auto_off<WgmmaKnob>("STAGEBENCH_WGMMA", value);
}

WgmmaKnob wgmma_knob() {
  return parse_wgmma_knob(std::getenv("STAGEBENCH_WGMMA"));
}

std::string wgmma_unavailable(const WgmmaDevice& d, WgmmaKnob knob) {
  if (knob == WgmmaKnob::off) return "STAGEBENCH_WGMMA=off";
  if (!d.nvidia_mma) return "no NVIDIA tensor-core kernels on this device";
  if (d.cc_major != 9 || d.cc_minor != 0)
    return "compute capability " + std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor) +
           ", wgmma needs 9.0 (sm_90a)";
  return "";
}

GemmPath choose_gemm_path(const WgmmaDevice& d, WgmmaKnob knob, const GemmCall& call) {
  if (!wgmma_unavailable(d, knob).empty() || !d.checked) return GemmPath::mma_sync;
  if (!call.f16 || call.k % 8 != 0 || call.m <= 0 || call.n <= 0 || call.k <= 0)
    return GemmPath::mma_sync;
  return GemmPath::wgmma;
}

SplitKKnob parse_split_k_knob(const char* value) {
  return parse_auto_off<SplitKKnob>("STAGEBENCH_GEMM_SPLIT_K", value);
}

SplitKKnob split_k_knob() {
  return parse_split_k_knob(std::getenv("STAGEBENCH_GEMM_SPLIT_K"));
}

std::vector<int> split_k_candidates(int64_t m, int64_t n, int64_t k, int compute_units,
                                    SplitKKnob knob) {
  constexpr int64_t kTile = 128, kTileK = 64, kMinTilesPerSplit = 4, kMaxSplits = 16;
  std::vector<int> out{1};
  if (knob == SplitKKnob::off || m <= 0 || n <= 0 || k <= 0 || compute_units <= 0) return out;
  const int64_t tiles = (m + kTile - 1) / kTile * ((n + kTile - 1) / kTile);
  const int64_t k_tiles = (k + kTileK - 1) / kTileK;
  if (tiles >= compute_units) return out;
  for (int64_t s = 2; s <= kMaxSplits; s *= 2)
    if (k_tiles >= s * kMinTilesPerSplit && tiles * s <= 2 * int64_t{compute_units})
      out.push_back(static_cast<int>(s));
  return out;
}

ConvIgemmKnob parse_conv_igemm_knob(const char* value) {
  return parse_auto_off<ConvIgemmKnob>("STAGEBENCH_CONV_IGEMM", value);
}

ConvIgemmKnob conv_igemm_knob() {
  return parse_conv_igemm_knob(std::getenv("STAGEBENCH_CONV_IGEMM"));
}

ConvDwBf16Knob parse_conv_dw_bf16_knob(const char* value) {
  return parse_auto_off<ConvDwBf16Knob>("STAGEBENCH_CONV_DW_BF16", value);
}

ConvDwBf16Knob conv_dw_bf16_knob() {
  return parse_conv_dw_bf16_knob(std::getenv("STAGEBENCH_CONV_DW_BF16"));
}

ConvBf16ReuseKnob parse_conv_bf16_reuse_knob(const char* value) {
  return parse_auto_off<ConvBf16ReuseKnob>("STAGEBENCH_CONV_BF16_REUSE", value);
}

ConvBf16ReuseKnob conv_bf16_reuse_knob() {
  return parse_conv_bf16_reuse_knob(std::getenv("STAGEBENCH_CONV_BF16_REUSE"));
}

// On unless turned off: timed on NVIDIA against the old path in one call, DynUNet's compile
// stage 16.462 -> 15.731 ms of device commands and its dataloader stage 17.06 -> 16.28 ms
// (results/h200/lead30-2026-11-28/README.md).
Bf16ProducersKnob parse_bf16_producers_knob(const char* value) {
  using enum Bf16ProducersKnob;
  return parse_knob("STAGEBENCH_CONV_BF16_PRODUCERS", value, automatic,
                    {{"on", automatic}, {"anywhere", anywhere}, {"off", off}});
}

Bf16ProducersKnob bf16_producers_knob() {
  return parse_bf16_producers_knob(std::getenv("STAGEBENCH_CONV_BF16_PRODUCERS"));
}

const char* conv_igemm_program_of(const std::string& kernel) {
  const std::string tail = "_phases";
  const bool store = kernel.rfind("conv3d_igemm_bf16_", 0) == 0 && kernel.size() > tail.size() &&
                     kernel.compare(kernel.size() - tail.size(), tail.size(), tail) == 0;
  if (store) return "nvidia_conv3d_igemm_bf16_phases";
  return kernel.find("bf16") != std::string::npos ? "nvidia_conv3d_igemm_bf16"
                                                  : "nvidia_conv3d_igemm";
}

bool conv_phase_store_requested() {
  return read_on_off_knob("STAGEBENCH_CONV_PHASE_STORE");
}

int parse_conv_lines(const char* value) {
  // On unless turned off: on an H200 DynUNet's dataloader stage took 10.84 ms a training step
  // with it against 12.52 without, and its B8 forward 3.40 ms against 4.44 (results/h200/
  // lead34-2026-11-29/README.md).
  if (value && std::strcmp(value, "off") == 0) return 0;
  if (!value || !*value || std::strcmp(value, "on") == 0) return 4;
  char* end = nullptr;
  const long n = std::strtol(value, &end, 10);
  if (*end != '\0' || n < 1 || n > 64)
    throw std::invalid_argument(std::string("STAGEBENCH_CONV_LINES=") + value +
                                ": expected on, off or a count of line pairs 1 .. 64");
  return static_cast<int>(n);
}

int conv_lines_requested() {
  return parse_conv_lines(std::getenv("STAGEBENCH_CONV_LINES"));
}

bool inorm_vec4_requested() {
  return read_on_off_knob("STAGEBENCH_INORM_VEC4");
}

bool conv_transpose_igemm_requested() {
  return read_on_off_knob("STAGEBENCH_CONV_TRANSPOSE_IGEMM");
}

// The ring unless told otherwise: timed on NVIDIA against the im2col-tile kernel in one call,
// DynUNet's dataloader stage 15.66 -> 14.29 ms and its bf16 weight gradients' device time a step
// 2.874 -> 1.584 ms (lines: 1.963), results/h200/dyn31-2026-11-28/README.md.
ConvDwTaps parse_conv_dw_taps(const char* value) {
  using enum ConvDwTaps;
  return parse_knob("STAGEBENCH_CONV_DW_TAPS", value, ring,
                    {{"ring", ring}, {"lines", lines}, {"off", off}});
}

ConvDwTaps conv_dw_taps_requested() {
  return parse_conv_dw_taps(std::getenv("STAGEBENCH_CONV_DW_TAPS"));
}

std::string conv_dw_bf16_unavailable(int64_t in_channels, int64_t out_channels,
                                     ConvDwBf16Knob knob) {
  if (knob == ConvDwBf16Knob::off) return "STAGEBENCH_CONV_DW_BF16=off";
  if (in_channels % 8 != 0)
    return std::to_string(in_channels) + " input channels, not a multiple of 8";
  if (out_channels % 8 != 0)
    return std::to_string(out_channels) + " output channels, not a multiple of 8";
  return "";
}

std::string conv_igemm_unavailable(const ConvIgemmCall& call, ConvIgemmKnob knob) {
  if (knob == ConvIgemmKnob::off) return "STAGEBENCH_CONV_IGEMM=off";
  if (!call.nvidia_mma) return "no NVIDIA tensor-core kernels on this device";
  if (!call.reduced) return "fp32 products (CLBlast)";
  if (!call.channels_last) return "ncdhw";
  // tf32 gathers channels that do not fill a 16-byte chunk word by word; 2-byte halves have no
  // copy that small.
  if (call.element_bytes == 2 && call.in_channels % 8 != 0)
    return std::to_string(call.in_channels) + " f16 input channels, not a multiple of 8";
  if (call.d > 1000 || call.h > 1000 || call.w > 1000) return "a volume edge over 1000";
  if (call.padding > 16) return "padding over 16";
  return "";
}

}  // namespace sb
