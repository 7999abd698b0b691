// merge_repeats: K processes' records of one ladder become one record whose interval holds the
// variation between processes (harness/repeat_merge.h).
#include "harness/repeat_merge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace sb {
namespace {

StageRecord stage_record(const std::string& id, std::vector<double> samples_ms,
                         const std::string& status = "ok") {
  StageRecord s;
  s.id = id;
  s.status = status;
  if (status != "ok") s.reasons = {"noise 9% > 2%"}, s.reason = "noise 9% > 2%";
  s.samples_ms = samples_ms;
  s.time.samples = static_cast<int64_t>(samples_ms.size());
  std::vector<double> sorted = samples_ms;
  std::sort(sorted.begin(), sorted.end());
  s.time.median_ms = sorted[sorted.size() / 2];
  s.throughput.items_per_s = 1000.0 / *s.time.median_ms;  // one item a sample
  s.correctness.cosine = 0.9999;
  s.correctness.pass = true;
  return s;
}

RunRecord run(std::vector<StageRecord> stages) {
  RunRecord r;
  r.model = "enformer", r.size = "tiny", r.backend = "cpu";
  r.complete = true;
  r.stages = std::move(stages);
  return r;
}

// Stage "fast" is 2x stage 0 in process 1 and 1.5x in process 2: each process's own interval
// is tight, and the merged one must hold both.
std::vector<RunRecord> two_processes() {
  return {run({stage_record("base", {10, 10, 10, 10, 10, 10, 10}),
               stage_record("fast", {5, 5, 5, 5, 5, 5, 5})}),
          run({stage_record("base", {12, 12, 12, 12, 12, 12, 12}),
               stage_record("fast", {8, 8, 8, 8, 8, 8, 8})})};
}

TEST(RepeatMerge, PoolsSamplesAndWidensTheIntervalToEveryProcessMedian) {
  const RunRecord m = merge_repeats(two_processes());
  ASSERT_EQ(m.stages.size(), 2u);
  const StageRecord& fast = m.stages[1];
  EXPECT_EQ(fast.time.samples, 14);
  ASSERT_TRUE(fast.samples_ms);
  EXPECT_EQ(fast.samples_ms->size(), 14u);
  ASSERT_TRUE(fast.speedup.ci95);
  EXPECT_LE(*(*fast.speedup.ci95)[0], 1.5);
  EXPECT_GE(*(*fast.speedup.ci95)[1], 2.0);
  ASSERT_TRUE(fast.speedup.ci95_coverage);
  EXPECT_GE(*fast.speedup.ci95_coverage, 0.95);
  EXPECT_EQ(fast.sections.at("repeat")["median_ms"], nlohmann::json({5.0, 8.0}));
  EXPECT_EQ(fast.sections.at("repeat")["vs_baseline"], nlohmann::json({2.0, 1.5}));
  EXPECT_EQ(m.sections.at("repeat")["processes"], 2);
  EXPECT_DOUBLE_EQ(*m.stages[0].speedup.vs_baseline, 1.0);
  ASSERT_TRUE(fast.speedup.vs_previous);
  // Throughput follows the pooled median (a sample is one item).
  EXPECT_NEAR(*fast.throughput.items_per_s, 1000.0 / *fast.time.median_ms, 1e-9);
}

TEST(RepeatMerge, TheWorstStatusWinsAndNamesItsProcess) {
  auto p = two_processes();
  p[1].stages[1].status = "invalid";
  p[1].stages[1].reasons = {"noise 9% > 2%"};
  const RunRecord m = merge_repeats(p);
  EXPECT_EQ(m.stages[1].status, "invalid");
  ASSERT_EQ(m.stages[1].reasons.size(), 1u);
  EXPECT_EQ(m.stages[1].reasons[0], "process 2: noise 9% > 2%");
  EXPECT_EQ(m.stages[0].status, "ok");
}

TEST(RepeatMerge, AFailedCheckInOneProcessIsTheMergedCheck) {
  auto p = two_processes();
  p[1].stages[1].correctness.pass = false;
  p[1].stages[1].correctness.cosine = 0.5;
  const RunRecord m = merge_repeats(p);
  ASSERT_TRUE(m.stages[1].correctness.pass);
  EXPECT_FALSE(*m.stages[1].correctness.pass);
  EXPECT_DOUBLE_EQ(*m.stages[1].correctness.cosine, 0.5);
}

TEST(RepeatMerge, AStageSkippedInOneProcessOnlyIsInvalid) {
  auto p = two_processes();
  p[0].stages[1] = stage_record("fast", {5}, "skipped");
  p[0].stages[1].samples_ms.reset();
  p[0].stages[1].time = {};
  p[0].stages[1].reasons.clear();
  p[0].stages[1].reason = "needs bf16";
  const RunRecord m = merge_repeats(p);
  EXPECT_EQ(m.stages[1].status, "invalid");
  EXPECT_EQ(m.stages[1].reason.value_or(""), "process 1: needs bf16");
}

TEST(RepeatMerge, ADifferentLadderIsRefused) {
  auto p = two_processes();
  p[1].stages[1].id = "other";
  EXPECT_THROW(merge_repeats(p), std::invalid_argument);
  p = two_processes();
  p[1].backend = "opencl";
  EXPECT_THROW(merge_repeats(p), std::invalid_argument);
}

TEST(RepeatMerge, AProcessThatKeptNoSamplesIsRefused) {
  auto p = two_processes();
  p[1].stages[1].samples_ms.reset();
  EXPECT_THROW(merge_repeats(p), std::invalid_argument);
}

TEST(RepeatMerge, AnIncompleteProcessMakesTheMergeIncomplete) {
  auto p = two_processes();
  p[1].complete = false;
  EXPECT_FALSE(merge_repeats(p).complete.value_or(true));
}

}  // namespace
}  // namespace sb
