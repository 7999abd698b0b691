#pragma once
// Which kernel family an f16 tensor-core GEMM runs on (issue 27): Hopper's wgmma
// (kernels/gemm_wgmma.cl, through the PTX patch of wgmma_program.h) or the mma.sync pipeline
// (kernels/gemm_pipelined.cl). A pure function of what the device is, what its start-up check
// found, the knob and the call, so that the choice is tested without a GPU. No OpenCL here.
#include <cstdint>
#include <string>
#include <vector>

namespace sb {

enum class GemmPath : uint8_t { mma_sync, wgmma };

// "wgmma" or "mma.sync": the names the stage record's gemm_path uses (docs/schema.md).
const char* gemm_path_name(GemmPath p);

// STAGEBENCH_WGMMA: auto (unset, "", "auto" or "on": wgmma where the device passed its check)
// or off (the mma.sync pipeline everywhere, for A/B runs). Anything else throws
// std::invalid_argument naming the accepted values.
enum class WgmmaKnob : uint8_t { automatic, off };
WgmmaKnob parse_wgmma_knob(const char* value);
WgmmaKnob wgmma_knob();  // the environment's

// What the backend knows about its device. cc_major/cc_minor come from
// CL_DEVICE_COMPUTE_CAPABILITY_*_NV (0 when the device is not NVIDIA's or does not say).
struct WgmmaDevice {
  bool nvidia_mma = false;  // the mma.sync compile probe passed (OpenCLBackend::has_mma)
  int cc_major = 0, cc_minor = 0;
  bool checked = false;  // the patched program built and matched the pipeline at start-up
  // gemm36: a tf32 wgmma variant built and matched the tf32 pipeline at start-up too
  bool tf32_checked = false;
};

// Whether the device may be asked to build and check the wgmma program at all: NVIDIA with
// mma.sync and compute capability exactly 9.0 (wgmma is sm_90a; sm_100 drops it), knob not off.
// Empty when yes, else why not (recorded, so a run says why it stayed on mma.sync).
std::string wgmma_unavailable(const WgmmaDevice& d, WgmmaKnob knob);

// One GEMM call of the pipeline's shape rules (rows 16-byte aligned: K a multiple of 8 halves).
struct GemmCall {
  bool f16 = false;  // s8 has no wgmma kernel here: it stays on mma.sync
  int64_t m = 0, n = 0, k = 0;
  int64_t conv_taps = 0;  // > 0: an implicit 'same' convolution (its K / taps a multiple of 64)
  bool tf32 = false;      // gemm36: a tf32 product (fp32 operands)
};

// wgmma when the device is available and checked, the knob allows it and the call is f16 with
// K a multiple of 8; any M and N (the kernel zero-fills the edge tiles' missing rows and K's
// tail, and its epilogue stores only what lies inside). gemm36: a tf32 call likewise with K a
// multiple of 4 where its variants passed their own check, not an implicit convolution (the
// start-up check covers plain products only); its first call still times the mma.sync tiles
// beside them (pipe_tile). Everything else: mma.sync.
GemmPath choose_gemm_path(const WgmmaDevice& d, WgmmaKnob knob, const GemmCall& call);

// STAGEBENCH_GEMM_SPLIT_K: auto (unset, "", "auto" or "on": gemm_batched's f16 wgmma products
// time split_k_candidates() on their first call and keep the fastest) or off (never split; for
// A/B runs). Anything else throws std::invalid_argument.
enum class SplitKKnob : uint8_t { automatic, off };
SplitKKnob parse_split_k_knob(const char* value);
SplitKKnob split_k_knob();  // the environment's

// The K splits worth timing for one f16 wgmma product of 128 x 128 tiles and K tiles of 64
// (kernels/gemm_wgmma.cl): 1, then each power of two from 2 to 16 that leaves every split at least
// 4 K tiles and keeps the work-groups within two waves of `compute_units`. Only 1 when the knob is
// off or the product's tiles alone already fill the compute units. A product with few output tiles
// and a long K (DeepFM's 64 x 1,024 x 3,072) otherwise runs its whole K on 8 of 132 SMs.
std::vector<int> split_k_candidates(int64_t m, int64_t n, int64_t k, int compute_units,
                                    SplitKKnob knob);

}  // namespace sb
