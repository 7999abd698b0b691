#include "harness/stage_report.h"

#include <gtest/gtest.h>

namespace sb {
namespace {

TEST(StageReport, ThroughputAndRooflineFraction) {
  const WorkCounts counts{2e9, 1e9, 8, "sequences", "fp32"};
  const auto t = throughput_record(counts, 0.5, DeviceCeilings{8, 4, {}});
  EXPECT_DOUBLE_EQ(t.items_per_s.value(), 16);
  EXPECT_DOUBLE_EQ(t.gflops.value(), 4);
  EXPECT_DOUBLE_EQ(t.gbytes_per_s.value(), 2);
  // Floor: max(2e9 / 8e9, 1e9 / 4e9) = 0.25 s of 0.5 s measured.
  EXPECT_DOUBLE_EQ(t.roofline_frac.value(), 0.5);
  EXPECT_EQ(t.item_name, "sequences");
}

TEST(StageReport, UnknownCountsAndCeilingsAreNull) {
  const auto no_ceiling = throughput_record({2e9, 0, 1, "cells"}, 1, std::nullopt);
  EXPECT_TRUE(!no_ceiling.roofline_frac);
  EXPECT_TRUE(!no_ceiling.gbytes_per_s);
  EXPECT_DOUBLE_EQ(no_ceiling.gflops.value(), 2);
  // Only the bandwidth ceiling known: the bytes term alone.
  const auto bw_only =
      throughput_record({2e9, 1e9, 1, "cells", "fp32"}, 1, DeviceCeilings{0, 10, {}});
  EXPECT_DOUBLE_EQ(bw_only.roofline_frac.value(), 0.1);
}

TEST(StageReport, TensorCoreStagesUseTheirPrecisionsCeiling) {
  WorkCounts c{4e9, 0, 1, "sequences", "tf32"};
  const DeviceCeilings ceilings{10, 0, {{"tf32", 40}}};
  const auto t = throughput_record(c, 1, ceilings);
  EXPECT_DOUBLE_EQ(t.roofline_frac.value(), 0.1);  // 4 GFLOP at 40 GFLOP/s
  EXPECT_EQ(t.ceiling_precision, "tf32");
  c.precision = "int8";  // no ceiling for it: no fraction rather than one against fp32's
  const auto u = throughput_record(c, 1, ceilings);
  EXPECT_TRUE(!u.roofline_frac);
  EXPECT_TRUE(!u.ceiling_precision);
  EXPECT_DOUBLE_EQ(u.gflops.value(), 4);
  c.precision = "fp32";
  const DeviceCeilings given_fp32{10, 0, {{"fp32", 20}}};  // a given fp32 ceiling wins
  EXPECT_DOUBLE_EQ(throughput_record(c, 1, given_fp32).roofline_frac.value(), 0.2);
}

// A stage faster than the floor shows the measured "ceiling" is none (CLBlast's fp32 GEMM on
// PoCL, beaten by our own kernels): no fraction, never one above 100%.
TEST(StageReport, NoFractionAboveTheMeasuredCeiling) {
  const WorkCounts counts{2e9, 0, 1, "sequences", "fp32"};
  EXPECT_TRUE(!throughput_record(counts, 0.1, DeviceCeilings{8, 0, {}}).roofline_frac);
  EXPECT_DOUBLE_EQ(throughput_record(counts, 0.25, DeviceCeilings{8, 0, {}}).roofline_frac.value(),
                   1.0);
}

}  // namespace
}  // namespace sb
