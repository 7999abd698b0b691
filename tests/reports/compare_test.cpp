// compare_documents on fixture documents: matching, verdicts per metric, threshold rules, status
// regressions, and what cannot be compared.
#include <gtest/gtest.h>

#include "reports/compare.h"
#include "reports/compare_render.h"
#include "tests/reports/fixture.h"

namespace {

using sb::test::fixture_document;

const sb::MetricComparison* find(const sb::CompareResult& r, const std::string& backend,
                                 const std::string& stage, const std::string& metric) {
  for (const auto& m : r.rows)
    if (m.backend == backend && m.stage == stage && m.metric == metric) return &m;
  return nullptr;
}

sb::CompareOptions with_rules(const std::string& rules) {
  sb::CompareOptions o;
  o.thresholds_text = rules;
  return o;
}

TEST(Compare, IdenticalDocumentsAreSameAndPass) {
  const auto doc = fixture_document();
  const sb::CompareResult r = sb::compare_documents(doc, doc, with_rules("*/*/*/time: +5%"));
  ASSERT_TRUE(r.comparable());
  EXPECT_FALSE(r.regression);
  EXPECT_TRUE(r.problems.empty());
  const auto* t = find(r, "cpu", "graph-compile", "time");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->verdict, sb::Verdict::same) << t->note;
  EXPECT_DOUBLE_EQ(t->change, 0);
  EXPECT_EQ(t->rule, "ok (line 1)");
  for (const char* metric : {"speedup_vs_baseline", "memory", "throughput", "cosine"}) {
    const auto* m = find(r, "opencl", "fused-gelu", metric);
    ASSERT_NE(m, nullptr) << metric;
    EXPECT_EQ(m->verdict, sb::Verdict::same) << metric << ": " << m->note;
  }
  EXPECT_EQ(find(r, "cpu", "fp16", "time"), nullptr) << "skipped on both sides: nothing to compare";
}

TEST(Compare, SlowerStageBreaksARelativeRule) {
  const auto base = fixture_document();
  const auto cand = fixture_document({{"graph-compile", 1.10}});
  const sb::CompareResult r =
      sb::compare_documents(base, cand, with_rules("enformer/cpu/*/time: +5%\n"));
  EXPECT_TRUE(r.regression);
  const auto* t = find(r, "cpu", "graph-compile", "time");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->verdict, sb::Verdict::slower);
  EXPECT_TRUE(t->regression);
  EXPECT_EQ(t->rule, "line 1: enformer/cpu/*/time: +5%");
  EXPECT_NEAR(t->change, 0.10, 0.02);
  EXPECT_LT(t->p_value, 0.001);
  // The rule names the cpu backend only: the OpenCL run is slower too but not gated.
  const auto* cl = find(r, "opencl", "graph-compile", "time");
  ASSERT_NE(cl, nullptr);
  EXPECT_EQ(cl->verdict, sb::Verdict::slower);
  EXPECT_FALSE(cl->regression);
  // Speedup falls with it (intervals of +-1% are disjoint) and throughput follows the time.
  EXPECT_EQ(find(r, "cpu", "graph-compile", "speedup_vs_baseline")->verdict, sb::Verdict::slower);
  EXPECT_EQ(find(r, "cpu", "graph-compile", "throughput")->verdict, sb::Verdict::slower);
}

TEST(Compare, NoRulesMeansNoRegressionForSlowerTimes) {
  const sb::CompareResult r = sb::compare_documents(
      fixture_document(), fixture_document({{"graph-compile", 1.10}}), sb::CompareOptions{});
  EXPECT_FALSE(r.regression);
  EXPECT_EQ(find(r, "cpu", "graph-compile", "time")->verdict, sb::Verdict::slower);
}

TEST(Compare, ALooserSpecificRuleOverridesAGeneralOne) {
  const sb::CompareResult r =
      sb::compare_documents(fixture_document(), fixture_document({{"graph-compile", 1.10}}),
                            with_rules("*/*/*/time: +5%\n*/*/graph-compile/time: +20%\n"));
  EXPECT_FALSE(r.regression);
  EXPECT_EQ(find(r, "cpu", "graph-compile", "time")->rule, "ok (line 2)");
}

TEST(Compare, AbsoluteRules) {
  const auto doc = fixture_document();
  // graph-compile runs at 350/199 = 1.76x: a 1.3x floor holds, a 2x floor breaks.
  sb::CompareResult r =
      sb::compare_documents(doc, doc, with_rules("enformer/*/graph-compile/speedup: >= 1.3"));
  EXPECT_FALSE(r.regression);
  r = sb::compare_documents(doc, doc, with_rules("enformer/*/graph-compile/speedup: >= 2"));
  EXPECT_TRUE(r.regression);
  EXPECT_TRUE(find(r, "cpu", "graph-compile", "speedup_vs_baseline")->regression);
  EXPECT_FALSE(find(r, "cpu", "fused-gelu", "speedup_vs_baseline")->regression);
  // int8's cosine 0.98 is below any fp32 floor, even unchanged.
  r = sb::compare_documents(doc, doc, with_rules("*/*/*/cosine: >= 0.9999"));
  EXPECT_TRUE(r.regression);
  EXPECT_TRUE(find(r, "opencl", "int8", "cosine")->regression);
  EXPECT_FALSE(find(r, "opencl", "graph-compile", "cosine")->regression);
  // Memory ceiling in bytes.
  r = sb::compare_documents(doc, doc, with_rules("*/*/*/memory: <= 1e6"));
  EXPECT_TRUE(find(r, "cpu", "original", "memory")->regression);
}

TEST(Compare, OkStageThatFailsInTheCandidateIsARegression) {
  const auto base = fixture_document();
  auto cand = fixture_document();
  cand["runs"][1]["stages"][2]["status"] = "failed";
  cand["runs"][1]["stages"][2]["reason"] = "run: out of device memory";
  const sb::CompareResult r = sb::compare_documents(base, cand, sb::CompareOptions{});
  EXPECT_TRUE(r.regression);
  const auto* s = find(r, "opencl", "graph-compile", "status");
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(s->regression);
  EXPECT_EQ(s->rule, "ok in base, failed in candidate");
  EXPECT_NE(s->note.find("out of device memory"), std::string::npos);
  // Invalid to ok is not a regression.
  const sb::CompareResult back = sb::compare_documents(cand, base, sb::CompareOptions{});
  EXPECT_FALSE(back.regression);
}

TEST(Compare, FewSamplesAreNotTested) {
  const sb::CompareResult r = sb::compare_documents(
      fixture_document({}, 3), fixture_document({{"original", 1.5}}, 3), sb::CompareOptions{});
  const auto* t = find(r, "cpu", "original", "time");
  ASSERT_NE(t, nullptr);
  // Every sample slower: suspected, but no rule gates it, so no regression and nothing undecidable.
  EXPECT_EQ(t->verdict, sb::Verdict::slower_suspected);
  EXPECT_FALSE(t->suspected);
  EXPECT_EQ(r.outcome(), sb::CompareOutcome::pass);
  EXPECT_EQ(find(r, "cpu", "fused-gelu", "time")->verdict, sb::Verdict::ambiguous);
  EXPECT_NE(t->note.find("< min 5"), std::string::npos) << t->note;
}

// The CI user's case: 4 samples a stage, one stage 3x slower, a +10% time rule. The slow stage
// is a suspected regression, the others are undecidable; neither passes by default.
TEST(Compare, FewSamplesUnderARuleAreSuspectedOrUndecidable) {
  const auto base = fixture_document({}, 4);
  const auto cand = fixture_document({{"graph-compile", 3.0}}, 4);
  sb::CompareOptions o = with_rules("*/*/*/time: +10%");
  const sb::CompareResult r = sb::compare_documents(base, cand, o);
  EXPECT_FALSE(r.regression);
  const auto* slow = find(r, "cpu", "graph-compile", "time");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->verdict, sb::Verdict::slower_suspected) << slow->note;
  EXPECT_TRUE(slow->suspected);
  EXPECT_FALSE(slow->undecidable);
  const auto* same = find(r, "cpu", "original", "time");
  ASSERT_NE(same, nullptr);
  EXPECT_TRUE(same->undecidable);
  EXPECT_EQ(same->inconclusive_reason, "samples 4 vs 4 < min 5");
  EXPECT_EQ(r.suspected, 2u);    // cpu and opencl
  EXPECT_EQ(r.undecidable, 7u);  // original, fused-gelu, int8 on both backends, fp16 on opencl
  EXPECT_EQ(r.outcome(), sb::CompareOutcome::regression);
  EXPECT_NE(r.hint.find("rerun with at least 5 samples"), std::string::npos) << r.hint;

  // Without the slow stage: undecidable, not a pass.
  const sb::CompareResult even = sb::compare_documents(base, base, o);
  EXPECT_EQ(even.suspected, 0u);
  EXPECT_EQ(even.outcome(), sb::CompareOutcome::undecidable);
  EXPECT_NE(even.hint.find("comparisons undecidable: samples 4 vs 4 < min 5"), std::string::npos)
      << even.hint;

  // The policy: pass lets both through, fail fails on undecidable too.
  o.inconclusive = sb::InconclusivePolicy::pass;
  EXPECT_EQ(sb::compare_documents(base, cand, o).outcome(), sb::CompareOutcome::pass);
  o.inconclusive.reset();
  o.thresholds_text += "\npolicy: inconclusive=fail";
  EXPECT_EQ(sb::compare_documents(base, base, o).outcome(), sb::CompareOutcome::regression);
  // With enough samples the same +10% rule decides.
  const sb::CompareResult full =
      sb::compare_documents(fixture_document(), fixture_document({{"graph-compile", 3.0}}),
                            with_rules("*/*/*/time: +10%"));
  EXPECT_TRUE(full.regression);
  EXPECT_EQ(full.undecidable, 0u);
}

// On too few samples a change 5x the threshold is suspected even when the samples overlap; a
// change below the rule is undecidable; a rule nothing could break passes.
TEST(Compare, SuspectedNeedsALargeChange) {
  const auto base = fixture_document({}, 3);
  const auto cand = fixture_document({{"fused-gelu", 1.05}}, 3);
  const sb::CompareResult r = sb::compare_documents(base, cand, with_rules("*/*/*/time: +10%"));
  const auto* t = find(r, "cpu", "fused-gelu", "time");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->undecidable);
  EXPECT_FALSE(t->suspected);
  const sb::CompareResult small =
      sb::compare_documents(base, cand, with_rules("*/*/*/time: +0.5%"));
  const auto* s = find(small, "cpu", "fused-gelu", "time");
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(s->suspected) << s->note;
  // Rules on memory and cosine never lack data.
  const sb::CompareResult exact =
      sb::compare_documents(base, cand, with_rules("*/*/*/memory: +10%\n*/*/*/cosine: >= 0.9"));
  EXPECT_EQ(exact.undecidable, 0u);
  EXPECT_EQ(exact.outcome(), sb::CompareOutcome::pass);
}

TEST(Compare, PolicyLine) {
  std::optional<sb::InconclusivePolicy> p;
  EXPECT_EQ(sb::parse_thresholds("# gate\npolicy: inconclusive=pass\n*/*/*/time: +5%", &p).size(),
            1u);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, sb::InconclusivePolicy::pass);
  sb::parse_thresholds("policy: inconclusive=fail", &p);
  EXPECT_EQ(*p, sb::InconclusivePolicy::fail);
  EXPECT_THROW(sb::parse_thresholds("policy: inconclusive=maybe"), std::invalid_argument);
  EXPECT_THROW(sb::parse_thresholds("policy: noise=pass"), std::invalid_argument);
  EXPECT_THROW(sb::parse_thresholds("policy:"), std::invalid_argument);
}

TEST(Compare, UnmatchedRunsAndStagesAreProblems) {
  auto base = fixture_document();
  auto cand = fixture_document();
  cand["runs"][1]["size"] = "base";
  cand["runs"][0]["stages"].erase(4);
  const sb::CompareResult r = sb::compare_documents(base, cand, sb::CompareOptions{});
  EXPECT_TRUE(r.comparable());
  auto has = [&](const std::string& s) {
    for (const auto& p : r.problems)
      if (p.find(s) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has("run enformer/tiny/opencl only in base"));
  EXPECT_TRUE(has("run enformer/base/opencl only in candidate"));
  EXPECT_TRUE(has("stage int8 only in base"));
  // What the base measured and the candidate lost fails the comparison, whatever the rules.
  EXPECT_EQ(r.vanished.size(), 2u);
  EXPECT_FALSE(r.regression);
  EXPECT_EQ(r.outcome(), sb::CompareOutcome::regression);
}

TEST(Compare, AVanishedRunFailsWithoutAnyRule) {
  auto base = fixture_document();
  auto cand = fixture_document();
  cand["runs"].erase(1);  // the whole OpenCL run gone
  const sb::CompareResult r = sb::compare_documents(base, cand, sb::CompareOptions{});
  ASSERT_EQ(r.vanished.size(), 1u);
  EXPECT_EQ(r.vanished[0], "run enformer/tiny/opencl only in base");
  EXPECT_EQ(r.outcome(), sb::CompareOutcome::regression);
  EXPECT_NE(sb::compare_markdown(r, {}, "b", "c").find("REGRESSION (1 measured in base and gone"),
            std::string::npos);
  // An extra run in the candidate is listed, and gates nothing.
  const sb::CompareResult extra = sb::compare_documents(cand, base, sb::CompareOptions{});
  EXPECT_TRUE(extra.vanished.empty());
  EXPECT_EQ(extra.outcome(), sb::CompareOutcome::pass);
}

TEST(Compare, AStageMeasuredInBaseAndSkippedOrFailedNowFails) {
  for (const char* status : {"skipped", "failed"}) {
    auto base = fixture_document();
    auto cand = fixture_document();
    cand["runs"][0]["stages"][2]["status"] = status;
    const sb::CompareResult r = sb::compare_documents(base, cand, sb::CompareOptions{});
    ASSERT_EQ(r.vanished.size(), 1u) << status;
    EXPECT_NE(r.vanished[0].find(std::string(" ") + status + " in candidate"), std::string::npos);
    EXPECT_EQ(r.outcome(), sb::CompareOutcome::regression) << status;
  }
  // Skipped on both sides is no loss.
  auto base = fixture_document();
  base["runs"][0]["stages"][2]["status"] = "skipped";
  const sb::CompareResult same = sb::compare_documents(base, base, sb::CompareOptions{});
  EXPECT_TRUE(same.vanished.empty());
}

TEST(Compare, NothingComparable) {
  auto cand = fixture_document();
  for (auto& run : cand["runs"]) run["model"] = "other";
  const sb::CompareResult r = sb::compare_documents(fixture_document(), cand, sb::CompareOptions{});
  EXPECT_FALSE(r.comparable());
  EXPECT_FALSE(r.regression);
  EXPECT_EQ(r.outcome(), sb::CompareOutcome::nothing_comparable);  // exit 2, still a failure
  EXPECT_FALSE(sb::compare_documents(nlohmann::json(), nlohmann::json(42), {}).comparable());
}

TEST(Compare, BadThresholdsThrowWithTheLine) {
  const auto doc = fixture_document();
  try {
    sb::compare_documents(doc, doc, with_rules("*/*/*/time: +5%\n*/*/*/latency: +5%"));
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("thresholds line 2: unknown metric 'latency'"),
              std::string::npos)
        << e.what();
  }
}

TEST(Compare, RenderedTableAndJson) {
  const auto base = fixture_document();
  const auto cand = fixture_document({{"graph-compile", 1.10}});
  const sb::CompareOptions o = with_rules("enformer/cpu/*/time: +5%");
  const sb::CompareResult r = sb::compare_documents(base, cand, o);
  const std::string md = sb::compare_markdown(r, o, "a.json", "b.json");
  for (const char* needle :
       {"### enformer / tiny / cpu", "| stage", "p", "verdict", "rule", "SLOWER (regression)",
        "line 1: enformer/cpu/*/time: +5%", "+10.", "result: REGRESSION"})
    EXPECT_NE(md.find(needle), std::string::npos) << needle << "\n" << md;
  const nlohmann::json j = sb::compare_json(r, o, "a.json", "b.json");
  EXPECT_EQ(j["schema"], "stagebench-compare/1");
  EXPECT_TRUE(j["regression"].get<bool>());
  EXPECT_EQ(j["rows"].size(), r.rows.size());
  EXPECT_NO_THROW(j.dump());
}

}  // namespace
