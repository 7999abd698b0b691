#pragma once
// Which kernels a conv3d or transposed conv3d call runs on (issue 27): the implicit GEMMs on
// NVIDIA's tensor cores, their bf16 variants and copies, or the vol2col / CLBlast paths before
// them. The knobs that choose (each an A/B switch; docs list them) and the reasons a call stays
// off a path, as pure functions of the call and the knob, so that the choice is tested without a
// GPU (tests/ops/conv_path_test.cpp). No OpenCL here.
#include <cstdint>
#include <string>

namespace sb {

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
// converts, f32_to_bf16; for A/B runs). Unset or "": on (conv_path.cpp says why). Else
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

// STAGEBENCH_CONV_DW_TAPS: how a 3^3 stride-1 bf16 weight gradient of 16 or 32 channels runs.
// lines: conv3d_dw_taps_bf16_* stages each output line's 9 x rows once for all 27 taps; ring:
// conv3d_dw_taps_ring_bf16_* also keeps the rows the next line of the plane shares (one new row
// per plane a line; unset or "" too: conv_path.cpp says why); off: the im2col-tile kernel
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
