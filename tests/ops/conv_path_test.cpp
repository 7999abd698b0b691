// The convolution paths' choice (models/ops/opencl/conv_path.h) as pure functions: the call and
// the knobs in, the path or the reason it is not taken out. No GPU needed.
#include "models/ops/opencl/conv_path.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/ops/refusal.h"

namespace sb {
namespace {

// conv3d's implicit GEMM (STAGEBENCH_CONV_IGEMM): the calls it covers, and why the others
// stay on vol2col.
ConvIgemmCall dynunet_call(int64_t in_channels, int64_t element_bytes = 4) {
  ConvIgemmCall c;
  c.nvidia_mma = c.reduced = c.channels_last = true;
  c.element_bytes = element_bytes;
  c.in_channels = in_channels;
  c.d = c.h = c.w = 64;
  return c;
}

TEST(ConvPath, ConvIgemmCoversReducedChannelsLastCalls) {
  EXPECT_EQ(conv_igemm_unavailable(dynunet_call(16), ConvIgemmKnob::automatic), "");
  EXPECT_EQ(conv_igemm_unavailable(dynunet_call(4), ConvIgemmKnob::automatic), "");
  EXPECT_EQ(conv_igemm_unavailable(dynunet_call(8, 2), ConvIgemmKnob::automatic), "");
  EXPECT_NE(conv_igemm_unavailable(dynunet_call(4, 2), ConvIgemmKnob::automatic), "");
  EXPECT_EQ(conv_igemm_unavailable(dynunet_call(1), ConvIgemmKnob::automatic), "");
  EXPECT_NE(conv_igemm_unavailable(dynunet_call(1, 2), ConvIgemmKnob::automatic), "");
  EXPECT_EQ(conv_igemm_unavailable(dynunet_call(16), ConvIgemmKnob::off),
            "STAGEBENCH_CONV_IGEMM=off");
  ConvIgemmCall c = dynunet_call(16);
  c.channels_last = false;
  EXPECT_EQ(conv_igemm_unavailable(c, ConvIgemmKnob::automatic), "ncdhw");
  c = dynunet_call(16);
  c.reduced = false;
  EXPECT_NE(conv_igemm_unavailable(c, ConvIgemmKnob::automatic), "");
  c = dynunet_call(16);
  c.nvidia_mma = false;
  EXPECT_NE(conv_igemm_unavailable(c, ConvIgemmKnob::automatic), "");
  c = dynunet_call(16);
  c.w = 1001;
  EXPECT_NE(conv_igemm_unavailable(c, ConvIgemmKnob::automatic), "");
  c = dynunet_call(16);
  c.padding = 17;
  EXPECT_NE(conv_igemm_unavailable(c, ConvIgemmKnob::automatic), "");
}

TEST(ConvPath, ConvIgemmKnobParsesItsValuesAndRejectsOthers) {
  EXPECT_EQ(parse_conv_igemm_knob(nullptr), ConvIgemmKnob::automatic);
  EXPECT_EQ(parse_conv_igemm_knob(""), ConvIgemmKnob::automatic);
  EXPECT_EQ(parse_conv_igemm_knob("auto"), ConvIgemmKnob::automatic);
  EXPECT_EQ(parse_conv_igemm_knob("on"), ConvIgemmKnob::automatic);
  EXPECT_EQ(parse_conv_igemm_knob("off"), ConvIgemmKnob::off);
  EXPECT_EQ(testing::refusal([] { parse_conv_igemm_knob("1"); }),
            "STAGEBENCH_CONV_IGEMM=1: expected auto, on or off");
}

// STAGEBENCH_CONV_LINES: line pairs a work-group of conv3d_lines_bf16_16, 0 for off.
TEST(ConvPath, ConvLinesKnobParsesItsValuesAndRejectsOthers) {
  EXPECT_EQ(parse_conv_lines(nullptr), 4);  // on unless turned off
  EXPECT_EQ(parse_conv_lines(""), 4);
  EXPECT_EQ(parse_conv_lines("on"), 4);
  EXPECT_EQ(parse_conv_lines("off"), 0);
  EXPECT_EQ(parse_conv_lines("4"), 4);
  EXPECT_EQ(parse_conv_lines("64"), 64);
  for (const char* bad : {"0", "65", "4x", "auto"})
    EXPECT_EQ(testing::refusal([bad] { parse_conv_lines(bad); }),
              std::string("STAGEBENCH_CONV_LINES=") + bad +
                  ": expected on, off or a count of line pairs 1 .. 64");
}

// The bf16 weight gradient (STAGEBENCH_CONV_DW_BF16): DynUNet's 16-64 channel calls take it;
// its single-channel input and output convolutions stay at tf32, and so does every call with
// the knob off.
TEST(ConvPath, ConvDwBf16TakesChannelsInWholeChunks) {
  EXPECT_EQ(conv_dw_bf16_unavailable(16, 16, ConvDwBf16Knob::automatic), "");
  EXPECT_EQ(conv_dw_bf16_unavailable(64, 32, ConvDwBf16Knob::automatic), "");
  EXPECT_EQ(conv_dw_bf16_unavailable(1, 16, ConvDwBf16Knob::automatic),
            "1 input channels, not a multiple of 8");
  EXPECT_EQ(conv_dw_bf16_unavailable(16, 1, ConvDwBf16Knob::automatic),
            "1 output channels, not a multiple of 8");
  EXPECT_NE(conv_dw_bf16_unavailable(12, 16, ConvDwBf16Knob::automatic), "");
  EXPECT_EQ(conv_dw_bf16_unavailable(16, 16, ConvDwBf16Knob::off), "STAGEBENCH_CONV_DW_BF16=off");
  EXPECT_EQ(parse_conv_dw_bf16_knob(nullptr), ConvDwBf16Knob::automatic);
  EXPECT_EQ(parse_conv_dw_bf16_knob("on"), ConvDwBf16Knob::automatic);
  EXPECT_EQ(parse_conv_dw_bf16_knob("off"), ConvDwBf16Knob::off);
  EXPECT_EQ(testing::refusal([] { parse_conv_dw_bf16_knob("bf16"); }),
            "STAGEBENCH_CONV_DW_BF16=bf16: expected auto, on or off");
}

// STAGEBENCH_CONV_DW_TAPS picks the tap-staging bf16 weight gradient: ring (unset and "" too),
// lines or off; anything else names the variable.
TEST(ConvPath, ConvDwTapsKnobParsesItsValuesAndRejectsOthers) {
  EXPECT_EQ(parse_conv_dw_taps(nullptr), ConvDwTaps::ring);
  EXPECT_EQ(parse_conv_dw_taps(""), ConvDwTaps::ring);
  EXPECT_EQ(parse_conv_dw_taps("off"), ConvDwTaps::off);
  EXPECT_EQ(parse_conv_dw_taps("lines"), ConvDwTaps::lines);
  EXPECT_EQ(parse_conv_dw_taps("ring"), ConvDwTaps::ring);
  EXPECT_EQ(testing::refusal([] { parse_conv_dw_taps("on"); }),
            "STAGEBENCH_CONV_DW_TAPS=on: expected ring, lines or off");
}

TEST(ConvPath, ConvBf16ReuseKnobParsesItsValuesAndRejectsOthers) {
  EXPECT_EQ(parse_conv_bf16_reuse_knob(nullptr), ConvBf16ReuseKnob::automatic);
  EXPECT_EQ(parse_conv_bf16_reuse_knob("auto"), ConvBf16ReuseKnob::automatic);
  EXPECT_EQ(parse_conv_bf16_reuse_knob("off"), ConvBf16ReuseKnob::off);
  EXPECT_EQ(testing::refusal([] { parse_conv_bf16_reuse_knob("no"); }),
            "STAGEBENCH_CONV_BF16_REUSE=no: expected auto, on or off");
}

// dyn29's untimed NVIDIA paths are off unless asked for; a value the knob does not know is bad
// input, "auto" included (it would read as "the default", which is now off).
TEST(ConvPath, Bf16ProducersKnobIsOffUnlessAskedFor) {
  EXPECT_EQ(parse_bf16_producers_knob(nullptr), Bf16ProducersKnob::automatic);
  EXPECT_EQ(parse_bf16_producers_knob(""), Bf16ProducersKnob::automatic);
  EXPECT_EQ(parse_bf16_producers_knob("off"), Bf16ProducersKnob::off);
  EXPECT_EQ(parse_bf16_producers_knob("on"), Bf16ProducersKnob::automatic);
  EXPECT_EQ(parse_bf16_producers_knob("anywhere"), Bf16ProducersKnob::anywhere);
  for (const char* bad : {"auto", "1"})
    EXPECT_EQ(
        testing::refusal([bad] { parse_bf16_producers_knob(bad); }),
        std::string("STAGEBENCH_CONV_BF16_PRODUCERS=") + bad + ": expected on, anywhere or off");
}

// Each conv3d kernel's program: the fp32 conv3d_weight_phases is no phase-store GEMM.
TEST(ConvIgemmProgram, KernelsGoToThePrograms) {
  EXPECT_STREQ(conv_igemm_program_of("conv3d_igemm_bf16_128x64_phases"),
               "nvidia_conv3d_igemm_bf16_phases");
  EXPECT_STREQ(conv_igemm_program_of("conv3d_weight_phases"), "nvidia_conv3d_igemm");
  EXPECT_STREQ(conv_igemm_program_of("conv3d_phase_scatter"), "nvidia_conv3d_igemm");
  EXPECT_STREQ(conv_igemm_program_of("conv3d_weight_phases_bf16"), "nvidia_conv3d_igemm_bf16");
  EXPECT_STREQ(conv_igemm_program_of("conv3d_igemm_bf16_128x64"), "nvidia_conv3d_igemm_bf16");
  EXPECT_STREQ(conv_igemm_program_of("f32_to_bf16"), "nvidia_conv3d_igemm_bf16");
  EXPECT_STREQ(conv_igemm_program_of("conv3d_igemm_tf32_128x16_words"), "nvidia_conv3d_igemm");
  EXPECT_STREQ(conv_igemm_program_of("conv3d_weight_taps_first"), "nvidia_conv3d_igemm");
}

}  // namespace
}  // namespace sb
