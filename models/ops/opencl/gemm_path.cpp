#include "models/ops/opencl/gemm_path.h"

#include <cstdlib>

#include "models/ops/knobs.h"

namespace sb {

const char* gemm_path_name(GemmPath p) {
  return p == GemmPath::wgmma ? "wgmma" : "mma.sync";
}

WgmmaKnob parse_wgmma_knob(const char* value) {
  return parse_auto_off_knob<WgmmaKnob>("STAGEBENCH_WGMMA", value);
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
  if (call.tf32)
    return d.tf32_checked && call.k % 4 == 0 && call.conv_taps == 0 && call.m > 0 && call.n > 0 &&
                   call.k > 0
               ? GemmPath::wgmma
               : GemmPath::mma_sync;
  if (!call.f16 || call.k % 8 != 0 || call.m <= 0 || call.n <= 0 || call.k <= 0)
    return GemmPath::mma_sync;
  return GemmPath::wgmma;
}

SplitKKnob parse_split_k_knob(const char* value) {
  return parse_auto_off_knob<SplitKKnob>("STAGEBENCH_GEMM_SPLIT_K", value);
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

}  // namespace sb
