// The A/B time gate's judgement (reports/ab_compare.h): a slowdown past the ratio with disjoint
// ranges of process medians fails, overlap or a small slowdown passes, and anything the base
// measured that a candidate process lost fails closed.
#include <gtest/gtest.h>

#include <stdexcept>

#include "reports/ab_compare.h"
#include "tests/reports/fixture.h"

namespace {

using sb::test::fixture_document;

// One process's document: every stage scaled by `drift` (the process's luck), and
// graph-compile also by `slow`.
nlohmann::json process(double drift, double slow = 1.0) {
  std::map<std::string, double> scale;
  for (const char* id : {"original", "fused-gelu", "fp16", "int8"}) scale[id] = drift;
  scale["graph-compile"] = drift * slow;
  return fixture_document(scale);
}

std::vector<nlohmann::json> side(std::initializer_list<double> drifts, double slow = 1.0) {
  std::vector<nlohmann::json> out;
  for (double d : drifts) out.push_back(process(d, slow));
  return out;
}

const sb::AbStage* find(const sb::AbResult& r, const std::string& run, const std::string& id) {
  for (const auto& s : r.stages)
    if (s.run == run && s.stage == id) return &s;
  return nullptr;
}

TEST(CompareAb, ASlowdownPastTheRatioWithDisjointRangesFails) {
  const auto base = side({1.00, 1.02, 0.99, 1.01, 1.00});
  const auto cand = side({1.01, 0.99, 1.00, 1.02, 1.00}, 1.3);
  const sb::AbResult r = sb::compare_ab(base, cand, {});
  const sb::AbStage* s = find(r, "enformer/tiny/cpu", "graph-compile");
  ASSERT_NE(s, nullptr);
  EXPECT_NEAR(s->ratio, 1.3, 0.03);
  EXPECT_TRUE(s->disjoint);
  EXPECT_TRUE(s->regression);
  EXPECT_DOUBLE_EQ(s->coverage, 1 - 2 * 0.5 * 0.5 * 0.5 * 0.5 * 0.5);
  EXPECT_FALSE(find(r, "enformer/tiny/cpu", "original")->regression);
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_NE(sb::ab_markdown(r, {}).find("REGRESSION (2 of 9 stages slower"), std::string::npos)
      << sb::ab_markdown(r, {});
}

TEST(CompareAb, OverlapOrASmallSlowdownPasses) {
  const auto base = side({1.00, 1.02, 0.99, 1.01, 1.00});
  // The same builds (A/A): nothing fails.
  EXPECT_EQ(sb::compare_ab(base, side({1.01, 0.98, 1.00, 1.03, 0.99}), {}).exit_code(), 0);
  // 1.2x, disjoint: reported slower, below the ratio that fails.
  const sb::AbResult small = sb::compare_ab(base, side({1.0, 1.0, 1.0, 1.0, 1.0}, 1.2), {});
  EXPECT_EQ(find(small, "enformer/tiny/cpu", "graph-compile")->verdict, "slower");
  EXPECT_EQ(small.exit_code(), 0);
  // 1.3x in the medians, but one base process as slow as the candidate: ranges meet.
  const sb::AbResult noisy =
      sb::compare_ab(side({1.0, 1.0, 1.35, 1.0, 1.0}), side({1.0, 1.0, 1.0, 1.0, 1.0}, 1.3), {});
  EXPECT_FALSE(find(noisy, "enformer/tiny/cpu", "graph-compile")->disjoint);
  EXPECT_EQ(noisy.exit_code(), 0);
  // The ratio is the caller's to set.
  sb::AbOptions strict;
  strict.slower = 1.1;
  EXPECT_EQ(sb::compare_ab(base, side({1.0, 1.0, 1.0, 1.0, 1.0}, 1.2), strict).exit_code(), 1);
}

TEST(CompareAb, WhatACandidateProcessLostFailsClosed) {
  const auto base = side({1.0, 1.0, 1.0});
  auto cand = side({1.0, 1.0, 1.0});
  cand[1]["runs"].erase(1);  // one process lost its OpenCL run
  sb::AbResult r = sb::compare_ab(base, cand, {});
  ASSERT_FALSE(r.vanished.empty());
  EXPECT_NE(r.vanished[0].find("run enformer/tiny/opencl: stage original measured by all 3 base "
                               "processes, by 2 candidate ones"),
            std::string::npos)
      << r.vanished[0];
  EXPECT_EQ(r.exit_code(), 1);

  cand = side({1.0, 1.0, 1.0});
  cand[2]["runs"][0]["stages"][1]["status"] = "failed";
  cand[2]["runs"][0]["stages"][1]["reason"] = "launch failed";
  r = sb::compare_ab(base, cand, {});
  ASSERT_EQ(r.vanished.size(), 1u);
  EXPECT_NE(r.vanished[0].find("(failed: launch failed)"), std::string::npos) << r.vanished[0];
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(CompareAb, WhatTheBaseDidNotAlwaysMeasureIsNotGated) {
  auto base = side({1.0, 1.0, 1.0});
  base[0]["runs"][0]["stages"][1]["status"] = "failed";
  const sb::AbResult r = sb::compare_ab(base, side({1.0, 1.0, 1.0}), {});
  ASSERT_EQ(r.unsettled.size(), 1u);
  EXPECT_EQ(r.exit_code(), 3);
  // The cpu run's fp16 stage is skipped everywhere: neither gated nor a problem.
  for (const auto& u : r.unsettled) EXPECT_EQ(u.find("fp16"), std::string::npos) << u;
}

TEST(CompareAb, RefusesEmptySides) {
  EXPECT_THROW(sb::compare_ab({}, side({1.0}), {}), std::invalid_argument);
  EXPECT_THROW(sb::compare_ab(side({1.0}), {nlohmann::json::object()}, {}), std::invalid_argument);
}

}  // namespace
