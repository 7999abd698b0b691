// Claims about one phase of a step (reports/phase_verdict.h): judged on that phase's per-step
// times against the stage before, with a Mann-Whitney interval; no verdict without the times.
#include "reports/phase_verdict.h"

#include <gtest/gtest.h>

#include <cmath>

#include "reports/stage_row.h"

namespace sb {
namespace {

StageRecord stage(const std::string& id, double h2d_ms, double spread = 0.02) {
  StageRecord s;
  s.id = id;
  s.status = "ok";
  std::vector<double> h2d;
  for (int i = 0; i < 9; ++i) h2d.push_back(h2d_ms * (1 + spread * ((i % 3) - 1) + 0.001 * i));
  s.summaries = {{"phase_samples_ms", {{"h2d", h2d}}}};
  return s;
}

std::vector<StageRecord> ladder(double before_ms, double after_ms, double spread = 0.02) {
  std::vector<StageRecord> st = {stage("baseline", before_ms, spread),
                                 stage("vectorized-fm", before_ms, spread),
                                 stage("batched-transfer", after_ms, spread)};
  st[2].claim.phase = "h2d";
  st[2].claim.phase_speedup_lo = 1.25;
  st[2].claim.phase_speedup_hi = 1 / 0.7;
  return st;
}

TEST(PhaseVerdict, ATransferCut30PercentConfirmsA20To30PercentClaim) {
  const PhaseVerdict v = phase_verdict(ladder(1.0, 0.75), 2);
  EXPECT_EQ(v.over, "vectorized-fm");
  EXPECT_NEAR(v.speedup, 1 / 0.75, 0.02);
  EXPECT_LT(v.lo, v.speedup);
  EXPECT_GT(v.hi, v.speedup);
  EXPECT_EQ(v.verdict, "confirmed") << phase_verdict_text(v);
}

TEST(PhaseVerdict, AnUnchangedTransferIsNotReproduced) {
  EXPECT_EQ(phase_verdict(ladder(1.0, 1.0), 2).verdict, "not reproduced (below)");
}

TEST(PhaseVerdict, NoisyTimesAreInconclusive) {
  EXPECT_EQ(phase_verdict(ladder(1.0, 0.85, 0.5), 2).verdict, "inconclusive");
}

TEST(PhaseVerdict, NoVerdictWithoutTheTimesOrWhenAStageIsNotOk) {
  auto st = ladder(1.0, 0.75);
  st[2].summaries = nlohmann::json::object();
  EXPECT_EQ(phase_verdict(st, 2).verdict, "");
  EXPECT_NE(phase_verdict(st, 2).unmet.find("recorded no h2d"), std::string::npos);
  st = ladder(1.0, 0.75);
  st[1].status = "invalid";
  EXPECT_EQ(phase_verdict(st, 2).verdict, "");
  EXPECT_EQ(phase_verdict(st, 2).unmet, "stage vectorized-fm is invalid");
  EXPECT_EQ(phase_verdict(st, 1).phase, "") << "no phase claim, nothing to say";
}

TEST(PhaseVerdict, TheLadderTableShowsIt) {
  RunRecord run;
  run.model = "deepfm";
  run.stages = ladder(1.0, 0.75);
  const RunSummary r = summarize_run(run);
  EXPECT_EQ(r.stages[2].phase_claim_verdict, "h2d: confirmed");
  EXPECT_NE(r.stages[2].phase_claim.find("over vectorized-fm, claimed 1.25-1.43x: confirmed"),
            std::string::npos)
      << r.stages[2].phase_claim;
}

}  // namespace
}  // namespace sb
