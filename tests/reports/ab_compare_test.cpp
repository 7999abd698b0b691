// The A/B time gate's judgement (reports/ab_compare.h): a slowdown past the ratio whose paired
// interval lies above 1x fails, a small or noisy one passes, and anything the base measured that
// a candidate process lost fails closed; a run whose workload differs is named.
#include <gtest/gtest.h>

#include <algorithm>
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

TEST(CompareAb, ASlowdownPastTheRatioWithItsIntervalAbove1Fails) {
  const auto base = side({1.00, 1.02, 0.99, 1.01, 1.00});
  const auto cand = side({1.01, 0.99, 1.00, 1.02, 1.00}, 1.3);
  const sb::AbResult r = sb::compare_ab(base, cand, {});
  const sb::AbStage* s = find(r, "enformer/tiny/cpu", "graph-compile");
  ASSERT_NE(s, nullptr);
  EXPECT_NEAR(s->ratio, 1.3, 0.03);
  EXPECT_GT(s->ratio_lo, 1);
  EXPECT_TRUE(s->regression);
  EXPECT_DOUBLE_EQ(s->coverage, 1 - 2 * 0.5 * 0.5 * 0.5 * 0.5 * 0.5);  // [min, max] of 5
  EXPECT_FALSE(find(r, "enformer/tiny/cpu", "original")->regression);
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_NE(sb::ab_markdown(r, {}).find("REGRESSION (2 of 9 stages slower"), std::string::npos)
      << sb::ab_markdown(r, {});
}

// The machine's phases last longer than a pair: the processes of a pair share them, so the
// ratio sees the slowdown where the two sides' ranges overlap.
TEST(CompareAb, PairsCancelTheMachinesPhases) {
  const auto base = side({1.0, 1.3, 1.0, 1.3, 1.0, 1.3, 1.0});
  const auto cand = side({1.0, 1.3, 1.0, 1.3, 1.0, 1.3, 1.0}, 1.3);
  const sb::AbResult r = sb::compare_ab(base, cand, {});
  const sb::AbStage* s = find(r, "enformer/tiny/opencl", "graph-compile");
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(s->regression);
  // Unpaired, the base's slowest process is as slow as the candidate's fastest.
  EXPECT_GE(*std::max_element(s->base_ms.begin(), s->base_ms.end()),
            *std::min_element(s->candidate_ms.begin(), s->candidate_ms.end()) * 0.99);
}

TEST(CompareAb, ASmallOrNoisySlowdownPasses) {
  const auto base = side({1.00, 1.02, 0.99, 1.01, 1.00});
  // The same builds (A/A): nothing fails.
  EXPECT_EQ(sb::compare_ab(base, side({1.01, 0.98, 1.00, 1.03, 0.99}), {}).exit_code(), 0);
  // 1.2x in every pair: reported slower, below the ratio that fails.
  const sb::AbResult small = sb::compare_ab(base, side({1.0, 1.0, 1.0, 1.0, 1.0}, 1.2), {});
  EXPECT_EQ(find(small, "enformer/tiny/cpu", "graph-compile")->verdict, "slower");
  EXPECT_EQ(small.exit_code(), 0);
  // 1.3x in the median, but one pair's base process was as slow: the interval holds 1x.
  const sb::AbResult noisy =
      sb::compare_ab(side({1.0, 1.0, 1.35, 1.0, 1.0}), side({1.0, 1.0, 1.0, 1.0, 1.0}, 1.3), {});
  EXPECT_LE(find(noisy, "enformer/tiny/cpu", "graph-compile")->ratio_lo, 1);
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

// A candidate whose workload differs (here the cpu run's batch) computed other work: the run is
// listed with the key and both values, its stages say so, and the gate's exit is unchanged.
TEST(CompareAb, ARunWhoseParamsDifferIsNamedNotGated) {
  const auto base = side({1.0, 1.0, 1.0, 1.0, 1.0});
  auto cand = side({1.0, 1.0, 1.0, 1.0, 1.0});
  for (auto& doc : cand) {
    doc["runs"][0]["params"]["batch"] = 2;
    doc["runs"][0]["params"]["added_field"] = "new";  // a key only one side has: not a difference
  }
  const sb::AbResult r = sb::compare_ab(base, cand, {});
  ASSERT_EQ(r.params_differ.size(), 1u);
  EXPECT_EQ(r.params_differ[0], "run enformer/tiny/cpu: params.batch base 1, candidate 2");
  EXPECT_NE(find(r, "enformer/tiny/cpu", "original")->note.find("params differ"),
            std::string::npos);
  EXPECT_EQ(find(r, "enformer/tiny/opencl", "original")->note.find("params differ"),
            std::string::npos);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_NE(sb::ab_markdown(r, {}).find("params differ (these runs' ratios compare different "
                                        "work; not gated):\n- run enformer/tiny/cpu"),
            std::string::npos)
      << sb::ab_markdown(r, {});
  EXPECT_EQ(sb::ab_json(r, {})["params_differ"].size(), 1u);
  EXPECT_TRUE(sb::compare_ab(base, side({1.0, 1.0, 1.0, 1.0, 1.0}), {}).params_differ.empty());
}

TEST(CompareAb, RefusesEmptySides) {
  EXPECT_THROW(sb::compare_ab({}, side({1.0}), {}), std::invalid_argument);
  EXPECT_THROW(sb::compare_ab(side({1.0}), {nlohmann::json::object()}, {}), std::invalid_argument);
}

}  // namespace
