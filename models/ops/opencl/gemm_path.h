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

// STAGEBENCH_CONV_IGEMM: auto (unset, "", "auto" or "on": conv3d's forward pass runs as an
// implicit GEMM on the tensor-core pipeline where conv3d_igemm_unavailable() allows) or off (the
// vol2col + GEMM path everywhere, for A/B runs). Anything else throws std::invalid_argument.
enum class ConvIgemmKnob : uint8_t { automatic, off };
ConvIgemmKnob parse_conv_igemm_knob(const char* value);
ConvIgemmKnob conv_igemm_knob();  // the environment's

// One forward conv3d call as the implicit GEMM sees it.
struct ConvIgemmCall {
  bool nvidia_mma = false;     // the mma.sync kernels run here (OpenCLBackend::has_mma)
  bool reduced = false;        // tf32 or f16 products (fp32 stays on CLBlast)
  bool channels_last = false;  // ndhwc (ncdhw has no gather here yet)
  int64_t element_bytes = 4;   // of the gathered input: 4 (tf32) or 2 (f16)
  int64_t in_channels = 0, d = 0, h = 0, w = 0, padding = 0;
};

// Empty when the call runs as an implicit GEMM, else why not: the knob, no mma.sync, fp32,
// ncdhw, f16 input channels that do not fill 16-byte chunks (a multiple of 8; tf32 takes any),
// or a volume edge over 1000 or padding over 16 (the kernel packs window corners in 10 bits).
std::string conv_igemm_unavailable(const ConvIgemmCall& call, ConvIgemmKnob knob);

// STAGEBENCH_CONV_DW_BF16: auto (unset, "", "auto" or "on": a bf16 call's weight gradient takes
// the bf16 kernel where its channels allow) or off (tf32 products from the fp32 x and dy, as
// before; for A/B runs). Anything else throws std::invalid_argument.
enum class ConvDwBf16Knob : uint8_t { automatic, off };
ConvDwBf16Knob parse_conv_dw_bf16_knob(const char* value);
ConvDwBf16Knob conv_dw_bf16_knob();  // the environment's

// STAGEBENCH_CONV_BF16_REUSE: auto (unset, "", "auto" or "on": the bf16 copy a bf16 convolution
// makes of a tensor held read-only (Backend::hold_read_only) is kept and reused while the hold
// lasts) or off (every call converts its input again; for A/B runs). Else std::invalid_argument.
enum class ConvBf16ReuseKnob : uint8_t { automatic, off };
ConvBf16ReuseKnob parse_conv_bf16_reuse_knob(const char* value);
ConvBf16ReuseKnob conv_bf16_reuse_knob();  // the environment's

// STAGEBENCH_CONV_BF16_PRODUCERS: on (an instance norm or concat whose output is about to be held
// for bf16 convolutions (Backend::will_hold_read_only) writes its bf16 copy beside the fp32
// output, and bf16 GEMM weights are permuted straight to bf16, on devices with the bf16 implicit
// GEMM), anywhere (the copies on every device, though only NVIDIA's bf16 convolutions read them:
// the Oclgrind pass, so that it checks their kernels) or off (the first bf16 convolution
// converts, f32_to_bf16; for A/B runs). Unset or "": on (gemm_path.cpp says why). Else
// std::invalid_argument.
enum class Bf16ProducersKnob : uint8_t { automatic, anywhere, off };
Bf16ProducersKnob parse_bf16_producers_knob(const char* value);
Bf16ProducersKnob bf16_producers_knob();  // the environment's

// STAGEBENCH_CONV_PHASE_STORE: on (the bf16 stride-2 data gradient's phases GEMM stores onto dx
// itself; unset or "" too) or off (its output, then conv3d_phase_scatter; for A/B runs). Else
// invalid_argument.
bool conv_phase_store_requested();

// STAGEBENCH_CONV_TRANSPOSE_IGEMM: on (unset or "" too: a channels-last bf16 k2 s2 transposed
// convolution runs its three passes on the bf16 implicit GEMMs, conv_transpose3d_igemm.cpp) or
// off (CLBlast fp32 GEMMs and column moves, as before; for A/B runs). Else invalid_argument.
bool conv_transpose_igemm_requested();
// STAGEBENCH_CONV_LINES (dyn33): line pairs a work-group of conv3d_lines_bf16_16 takes; "on":
// unset or "on": 4, "off": 0 (the implicit GEMM's tiles, for A/B runs), or a count 1 .. 64.
int parse_conv_lines(const char* value);
int conv_lines_requested();  // the environment's
// STAGEBENCH_INORM_VEC4 (dyn33): InstanceNorm's elementwise passes four elements an item where
// the layout allows (instance_norm.cl); "off": one an item.
bool inorm_vec4_requested();

// STAGEBENCH_CONV_DW_TAPS: how a 3^3 stride-1 bf16 weight gradient of 16 or 32 channels runs.
// lines: conv3d_dw_taps_bf16_* stages each output line's 9 x rows once for all 27 taps; ring:
// conv3d_dw_taps_ring_bf16_* also keeps the rows the next line of the plane shares (one new row
// per plane a line; unset or "" too: gemm_path.cpp says why); off: the im2col-tile kernel
// conv3d_dw_bf16_* (for A/B runs). Else invalid_argument.
enum class ConvDwTaps : uint8_t { off, lines, ring };
ConvDwTaps parse_conv_dw_taps(const char* value);
ConvDwTaps conv_dw_taps_requested();  // the environment's

// The NVIDIA conv3d program that holds a kernel (conv3d_igemm.cpp builds each on first use): the
// phase-store GEMMs (conv3d_igemm_bf16_*_phases) their own, every other name with "bf16" the
// bf16 program, the rest (tf32, f16, the fp32 weight permutations, conv3d_weight_phases) the
// first. A name sent to the wrong one fails clCreateKernel (dyn29's first device call: the
// fp32 conv3d_weight_phases went to the phase-store program by its "_phases").
const char* conv_igemm_program_of(const std::string& kernel);

// Empty when a bf16 weight gradient that the implicit GEMM covers computes in bf16, else why it
// stays at tf32: the knob, or input or output channels not a multiple of 8 (its 16-byte copies
// are 8 channels of x and of dy).
std::string conv_dw_bf16_unavailable(int64_t in_channels, int64_t out_channels,
                                     ConvDwBf16Knob knob);

}  // namespace sb
