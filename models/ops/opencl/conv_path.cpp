#include "models/ops/opencl/conv_path.h"

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "models/ops/knobs.h"

namespace sb {

ConvIgemmKnob parse_conv_igemm_knob(const char* value) {
  return parse_auto_off_knob<ConvIgemmKnob>("STAGEBENCH_CONV_IGEMM", value);
}

ConvIgemmKnob conv_igemm_knob() {
  return parse_conv_igemm_knob(std::getenv("STAGEBENCH_CONV_IGEMM"));
}

ConvDwBf16Knob parse_conv_dw_bf16_knob(const char* value) {
  return parse_auto_off_knob<ConvDwBf16Knob>("STAGEBENCH_CONV_DW_BF16", value);
}

ConvDwBf16Knob conv_dw_bf16_knob() {
  return parse_conv_dw_bf16_knob(std::getenv("STAGEBENCH_CONV_DW_BF16"));
}

ConvBf16ReuseKnob parse_conv_bf16_reuse_knob(const char* value) {
  return parse_auto_off_knob<ConvBf16ReuseKnob>("STAGEBENCH_CONV_BF16_REUSE", value);
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
