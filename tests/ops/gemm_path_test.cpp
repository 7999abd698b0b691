// The f16 GEMM's path choice (models/ops/opencl/gemm_path.h) as a pure function: device facts,
// the STAGEBENCH_WGMMA knob and the call's shape in, wgmma or mma.sync out. No GPU needed.
#include "models/ops/opencl/gemm_path.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "tests/ops/refusal.h"

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
  EXPECT_EQ(testing::refusal([] { parse_wgmma_knob("0"); }),
            "STAGEBENCH_WGMMA=0: expected auto, on or off");
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
  EXPECT_EQ(testing::refusal([] { parse_split_k_knob("2"); }),
            "STAGEBENCH_GEMM_SPLIT_K=2: expected auto, on or off");
}

TEST(GemmPath, NamesAreTheRecordsValues) {
  EXPECT_STREQ(gemm_path_name(GemmPath::wgmma), "wgmma");
  EXPECT_STREQ(gemm_path_name(GemmPath::mma_sync), "mma.sync");
}

}  // namespace
}  // namespace sb
