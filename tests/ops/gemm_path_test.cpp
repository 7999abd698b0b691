// The f16 GEMM's path choice (models/ops/opencl/gemm_path.h) as a pure function: device facts,
// the STAGEBENCH_WGMMA knob and the call's shape in, wgmma or mma.sync out. No GPU needed.
#include "models/ops/opencl/gemm_path.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <utility>
#include <vector>

namespace sb {
namespace {

WgmmaDevice hopper(bool checked = true) {
  WgmmaDevice d;
  d.nvidia_mma = true;
  d.cc_major = 9;
  d.cc_minor = 0;
  d.checked = checked;
  return d;
}

GemmCall f16(int64_t m, int64_t n, int64_t k, int64_t taps = 0) {
  return GemmCall{true, m, n, k, taps};
}

TEST(GemmPath, CheckedHopperTakesWgmmaForF16OfAnyMAndN) {
  const WgmmaDevice d = hopper();
  EXPECT_EQ(choose_gemm_path(d, WgmmaKnob::automatic, f16(8192, 8192, 8192)), GemmPath::wgmma);
  // Edge tiles in M and N and K's tail are the kernel's to handle: still wgmma.
  EXPECT_EQ(choose_gemm_path(d, WgmmaKnob::automatic, f16(200, 330, 200)), GemmPath::wgmma);
  EXPECT_EQ(choose_gemm_path(d, WgmmaKnob::automatic, f16(1, 1, 8)), GemmPath::wgmma);
  // Enformer's implicit convolution (K = taps x channels).
  EXPECT_EQ(choose_gemm_path(d, WgmmaKnob::automatic, f16(1536, 768, 5 * 768, 5)), GemmPath::wgmma);
}

TEST(GemmPath, RowsNotSixteenByteAlignedStayOnMmaSync) {
  EXPECT_EQ(choose_gemm_path(hopper(), WgmmaKnob::automatic, f16(256, 256, 100)),
            GemmPath::mma_sync);
  EXPECT_EQ(choose_gemm_path(hopper(), WgmmaKnob::automatic, f16(256, 256, 0)), GemmPath::mma_sync);
}

TEST(GemmPath, Int8AndUncheckedTf32StayOnMmaSync) {
  GemmCall call = f16(4096, 4096, 4096);
  call.f16 = false;
  EXPECT_EQ(choose_gemm_path(hopper(), WgmmaKnob::automatic, call), GemmPath::mma_sync);
  call.tf32 = true;  // gemm36: the f16 check alone does not send tf32 to wgmma
  EXPECT_EQ(choose_gemm_path(hopper(), WgmmaKnob::automatic, call), GemmPath::mma_sync);
}

// gemm36: tf32 on wgmma where its own variants passed, K a multiple of 4 (16-byte fp32 rows),
// and not an implicit convolution (the start-up check covers plain products only).
TEST(GemmPath, CheckedTf32TakesWgmmaForPlainProductsOnly) {
  WgmmaDevice d = hopper();
  d.tf32_checked = true;
  GemmCall call{false, 8192, 8192, 8192, 0, true};
  EXPECT_EQ(choose_gemm_path(d, WgmmaKnob::automatic, call), GemmPath::wgmma);
  call.k = 4100;  // a multiple of 4, not of 8: 16-byte fp32 rows still
  EXPECT_EQ(choose_gemm_path(d, WgmmaKnob::automatic, call), GemmPath::wgmma);
  call.k = 4098;
  EXPECT_EQ(choose_gemm_path(d, WgmmaKnob::automatic, call), GemmPath::mma_sync);
  call.k = 5 * 768;
  call.conv_taps = 5;
  EXPECT_EQ(choose_gemm_path(d, WgmmaKnob::automatic, call), GemmPath::mma_sync);
  call.conv_taps = 0;
  EXPECT_EQ(choose_gemm_path(d, WgmmaKnob::off, call), GemmPath::mma_sync);
  d.checked = false;  // the f16 check failed: wgmma is off for every precision
  EXPECT_EQ(choose_gemm_path(d, WgmmaKnob::automatic, call), GemmPath::mma_sync);
}

TEST(GemmPath, KnobOffForcesMmaSync) {
  EXPECT_EQ(choose_gemm_path(hopper(), WgmmaKnob::off, f16(4096, 4096, 4096)), GemmPath::mma_sync);
  EXPECT_EQ(wgmma_unavailable(hopper(), WgmmaKnob::off), "STAGEBENCH_WGMMA=off");
}

TEST(GemmPath, UncheckedOrFailedStartUpCheckStaysOnMmaSync) {
  EXPECT_EQ(choose_gemm_path(hopper(false), WgmmaKnob::automatic, f16(4096, 4096, 4096)),
            GemmPath::mma_sync);
}

TEST(GemmPath, OnlyComputeCapabilityNinePointZeroIsOffered) {
  for (const auto& [major, minor] : {std::pair{8, 0}, {8, 9}, {9, 1}, {10, 0}, {12, 0}, {0, 0}}) {
    WgmmaDevice d = hopper();
    d.cc_major = major;
    d.cc_minor = minor;
    EXPECT_NE(wgmma_unavailable(d, WgmmaKnob::automatic), "") << major << "." << minor;
    EXPECT_EQ(choose_gemm_path(d, WgmmaKnob::automatic, f16(4096, 4096, 4096)), GemmPath::mma_sync)
        << major << "." << minor;
  }
  EXPECT_EQ(wgmma_unavailable(hopper(), WgmmaKnob::automatic), "");
}

// What PoCL and the CPU look like to the choice: no mma.sync, no compute capability. Even a
// `checked` flag set by mistake does not send them to wgmma.
TEST(GemmPath, DevicesWithoutNvidiaTensorCoresNeverTakeWgmma) {
  WgmmaDevice pocl;
  EXPECT_NE(wgmma_unavailable(pocl, WgmmaKnob::automatic), "");
  pocl.checked = true;
  pocl.cc_major = 9;
  EXPECT_EQ(choose_gemm_path(pocl, WgmmaKnob::automatic, f16(4096, 4096, 4096)),
            GemmPath::mma_sync);
}

TEST(GemmPath, KnobParsesItsValuesAndRejectsOthers) {
  EXPECT_EQ(parse_wgmma_knob(nullptr), WgmmaKnob::automatic);
  EXPECT_EQ(parse_wgmma_knob(""), WgmmaKnob::automatic);
  EXPECT_EQ(parse_wgmma_knob("auto"), WgmmaKnob::automatic);
  EXPECT_EQ(parse_wgmma_knob("on"), WgmmaKnob::automatic);
  EXPECT_EQ(parse_wgmma_knob("off"), WgmmaKnob::off);
  try {
    parse_wgmma_knob("0");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("STAGEBENCH_WGMMA=0"), std::string::npos) << e.what();
  }
}

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

TEST(GemmPath, ConvIgemmCoversReducedChannelsLastCalls) {
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

TEST(GemmPath, ConvIgemmKnobParsesItsValuesAndRejectsOthers) {
  EXPECT_EQ(parse_conv_igemm_knob(nullptr), ConvIgemmKnob::automatic);
  EXPECT_EQ(parse_conv_igemm_knob(""), ConvIgemmKnob::automatic);
  EXPECT_EQ(parse_conv_igemm_knob("auto"), ConvIgemmKnob::automatic);
  EXPECT_EQ(parse_conv_igemm_knob("on"), ConvIgemmKnob::automatic);
  EXPECT_EQ(parse_conv_igemm_knob("off"), ConvIgemmKnob::off);
  try {
    parse_conv_igemm_knob("1");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("STAGEBENCH_CONV_IGEMM=1"), std::string::npos) << e.what();
  }
}

// STAGEBENCH_CONV_LINES: line pairs a work-group of conv3d_lines_bf16_16, 0 for off.
TEST(GemmPath, ConvLinesKnobParsesItsValuesAndRejectsOthers) {
  EXPECT_EQ(parse_conv_lines(nullptr), 4);  // on unless turned off
  EXPECT_EQ(parse_conv_lines(""), 4);
  EXPECT_EQ(parse_conv_lines("on"), 4);
  EXPECT_EQ(parse_conv_lines("off"), 0);
  EXPECT_EQ(parse_conv_lines("4"), 4);
  EXPECT_EQ(parse_conv_lines("64"), 64);
  for (const char* bad : {"0", "65", "4x", "auto"}) {
    try {
      parse_conv_lines(bad);
      FAIL() << "expected std::invalid_argument for " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("STAGEBENCH_CONV_LINES=") + bad),
                std::string::npos)
          << e.what();
    }
  }
}

// The bf16 weight gradient (STAGEBENCH_CONV_DW_BF16): DynUNet's 16-64 channel calls take it;
// its single-channel input and output convolutions stay at tf32, and so does every call with
// the knob off.
TEST(GemmPath, ConvDwBf16TakesChannelsInWholeChunks) {
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
  try {
    parse_conv_dw_bf16_knob("bf16");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("STAGEBENCH_CONV_DW_BF16=bf16"), std::string::npos)
        << e.what();
  }
}

// STAGEBENCH_CONV_DW_TAPS picks the tap-staging bf16 weight gradient: ring (unset and "" too),
// lines or off; anything else names the variable.
TEST(GemmPath, ConvDwTapsKnobParsesItsValuesAndRejectsOthers) {
  EXPECT_EQ(parse_conv_dw_taps(nullptr), ConvDwTaps::ring);
  EXPECT_EQ(parse_conv_dw_taps(""), ConvDwTaps::ring);
  EXPECT_EQ(parse_conv_dw_taps("off"), ConvDwTaps::off);
  EXPECT_EQ(parse_conv_dw_taps("lines"), ConvDwTaps::lines);
  EXPECT_EQ(parse_conv_dw_taps("ring"), ConvDwTaps::ring);
  try {
    parse_conv_dw_taps("on");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("STAGEBENCH_CONV_DW_TAPS=on"), std::string::npos)
        << e.what();
  }
}

TEST(GemmPath, ConvBf16ReuseKnobParsesItsValuesAndRejectsOthers) {
  EXPECT_EQ(parse_conv_bf16_reuse_knob(nullptr), ConvBf16ReuseKnob::automatic);
  EXPECT_EQ(parse_conv_bf16_reuse_knob("auto"), ConvBf16ReuseKnob::automatic);
  EXPECT_EQ(parse_conv_bf16_reuse_knob("off"), ConvBf16ReuseKnob::off);
  EXPECT_THROW(parse_conv_bf16_reuse_knob("no"), std::invalid_argument);
}

// dyn29's untimed NVIDIA paths are off unless asked for; a value the knob does not know is bad
// input, "auto" included (it would read as "the default", which is now off).
TEST(GemmPath, Bf16ProducersKnobIsOffUnlessAskedFor) {
  EXPECT_EQ(parse_bf16_producers_knob(nullptr), Bf16ProducersKnob::automatic);
  EXPECT_EQ(parse_bf16_producers_knob(""), Bf16ProducersKnob::automatic);
  EXPECT_EQ(parse_bf16_producers_knob("off"), Bf16ProducersKnob::off);
  EXPECT_EQ(parse_bf16_producers_knob("on"), Bf16ProducersKnob::automatic);
  EXPECT_EQ(parse_bf16_producers_knob("anywhere"), Bf16ProducersKnob::anywhere);
  for (const char* bad : {"auto", "1"}) {
    try {
      parse_bf16_producers_knob(bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("STAGEBENCH_CONV_BF16_PRODUCERS=") + bad),
                std::string::npos)
          << e.what();
    }
  }
}

// gemm_batched's split K: DeepFM's forward product (64 x 1,024 x 3,072: 8 tiles, 48 K tiles) on
// an H200's 132 SMs may split 2 to 8 ways (16 would leave 3 K tiles a split); a product whose
// tiles fill the SMs, a short K, or the knob off never splits.
TEST(GemmPath, SplitKOnlyWhereFewTilesMeetALongK) {
  EXPECT_EQ(split_k_candidates(64, 1024, 3072, 132, SplitKKnob::automatic),
            (std::vector<int>{1, 2, 4, 8}));
  // 24 tiles, 16 K tiles: 8 splits would leave 2 K tiles a split.
  EXPECT_EQ(split_k_candidates(64, 3072, 1024, 132, SplitKKnob::automatic),
            (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(split_k_candidates(1024, 3072, 64, 132, SplitKKnob::automatic),
            (std::vector<int>{1}));  // 192 tiles
  EXPECT_EQ(split_k_candidates(64, 1024, 448, 132, SplitKKnob::automatic),
            (std::vector<int>{1}));  // 7 K tiles: 2 splits would leave 3 or 4
  EXPECT_EQ(split_k_candidates(64, 1024, 3072, 132, SplitKKnob::off), (std::vector<int>{1}));
  EXPECT_EQ(split_k_candidates(64, 64, 1 << 20, 4, SplitKKnob::automatic),
            (std::vector<int>{1, 2, 4, 8}));  // one tile, 4 units: at most 8 work-groups
  EXPECT_EQ(parse_split_k_knob(nullptr), SplitKKnob::automatic);
  EXPECT_EQ(parse_split_k_knob("on"), SplitKKnob::automatic);
  EXPECT_EQ(parse_split_k_knob("off"), SplitKKnob::off);
  try {
    parse_split_k_knob("2");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("STAGEBENCH_GEMM_SPLIT_K=2"), std::string::npos)
        << e.what();
  }
}

TEST(GemmPath, NamesAreTheRecordsValues) {
  EXPECT_STREQ(gemm_path_name(GemmPath::wgmma), "wgmma");
  EXPECT_STREQ(gemm_path_name(GemmPath::mma_sync), "mma.sync");
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
