// Every DeepFM training stage at tiny, on every backend built here, against the baseline's
// training trace within the stage's docs/method.md bounds; the data phase against its own
// baseline; the dropout masks and the loss curve the same on every backend.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "harness/correctness.h"
#include "models/deepfm/workload.h"
#include "models/registry.h"
#include "tests/common/backend_or_null.h"

namespace sb::deepfm {
namespace {

using sb::testing::backend_or_null;

WorkloadOptions tiny() {
  WorkloadOptions o;
  o.size = "tiny";
  return o;
}

class DeepFmLadder : public ::testing::TestWithParam<std::string> {};

TEST_P(DeepFmLadder, EveryStageMatchesItsBaseline) {
  std::string why;
  auto backend = backend_or_null(GetParam(), &why);
  if (!backend) GTEST_SKIP() << GetParam() << " backend unavailable: " << why;
  DeepFmWorkload w(tiny(), std::move(backend));
  w.prepare(kBaseline);
  w.run(kBaseline);  // timed steps before the check must not change what it sees
  const TrainTrace reference = *w.train_trace(kBaseline);
  ASSERT_EQ(reference.loss.size(), static_cast<size_t>(w.config().check_steps));
  EXPECT_EQ(reference.params.size(), static_cast<size_t>(w.parameters().count()));
  // The check restores the initial parameters: a second trace is the same trace.
  w.run(kBaseline);
  EXPECT_EQ(w.train_trace(kBaseline)->loss, reference.loss);
  int checked = 0;
  for (size_t s = 1; s < kPreprocess; ++s) {
    const std::string id = ladder()[s].id;
    if (const std::string skip = w.skip_reason(s); !skip.empty()) {
      EXPECT_GT(skip.size(), 10u) << id << ": a skip needs a reason";
      continue;
    }
    w.prepare(s);
    w.run(s);
    w.run(s);
    const auto trace = w.train_trace(s);
    ASSERT_TRUE(trace) << id;
    const auto r = compare_training(*trace, reference, ladder()[s].tolerance);
    EXPECT_TRUE(r.pass) << GetParam() << " stage " << id << ": " << r.reason;
    const nlohmann::json sum = w.summaries(s);
    EXPECT_EQ(sum["phases_ms"].size(), 5u) << id;
    // Every step's phases, for the phase claims; the loss is a part of the forward phase.
    const auto& each = sum["phase_samples_ms"];
    ASSERT_EQ(each["loss"].size(), each["forward"].size()) << id;
    ASSERT_GE(each["h2d"].size(), 6u) << id << ": enough steps for a 95% interval";
    for (size_t i = 0; i < each["loss"].size(); ++i)
      EXPECT_LE(each["loss"][i].get<double>(), each["forward"][i].get<double>()) << id;
    EXPECT_GT(sum["memory_split_bytes"]["optimizer_state"].get<double>(),
              sum["memory_split_bytes"]["parameters"].get<double>())
        << id << ": AdamW keeps two moments per parameter";
    ++checked;
    w.release(s);
  }
  EXPECT_GE(checked, 2);  // vectorized-fm and preallocated-loss run everywhere
  w.prepare(kPreprocess);
  w.prepare(kLiteralStrings);
  w.run(kPreprocess);
  w.run(kLiteralStrings);
  EXPECT_FALSE(w.train_trace(kLiteralStrings));
  const auto r = compare(w.output(kLiteralStrings), w.output(kPreprocess), {});
  EXPECT_TRUE(r.pass) << r.reason;
}

INSTANTIATE_TEST_SUITE_P(Backends, DeepFmLadder, ::testing::ValuesIn(backend_names()));

// Same seed, same batches, same dropout masks: the backends train the same curve.
TEST(DeepFmBackends, TrainTheSameLossCurveWithDropout) {
  std::string why;
  auto opencl = backend_or_null("opencl", &why);
  if (!opencl) GTEST_SKIP() << "opencl backend unavailable: " << why;
  DeepFmWorkload cpu(tiny(), make_backend("cpu", ""));
  DeepFmWorkload cl(tiny(), std::move(opencl));
  cpu.prepare(kBaseline);
  cl.prepare(kBaseline);
  const auto r = compare_training(*cl.train_trace(kBaseline), *cpu.train_trace(kBaseline),
                                  ladder()[kBaseline].tolerance);
  EXPECT_TRUE(r.pass) << r.reason;
}

TEST(DeepFmBackends, DropoutChangesTheCurve) {
  WorkloadOptions off = tiny();
  off.dropout = 0.f;
  DeepFmWorkload with(tiny(), make_backend("cpu", "")), without(off, make_backend("cpu", ""));
  with.prepare(kBaseline);
  without.prepare(kBaseline);
  EXPECT_NE(with.train_trace(kBaseline)->loss, without.train_trace(kBaseline)->loss);
}

// Training learns: the synthetic task's labels depend on the inputs, so a few hundred steps
// must bring the task losses well below where they start.
TEST(DeepFmLearning, TaskLossesFallWellBelowTheStart) {
  DeepFmWorkload w(tiny(), make_backend("cpu", ""));
  w.prepare(kPreallocatedLoss);
  constexpr int64_t kSteps = 300, kWindow = 20;
  w.train(kPreallocatedLoss, kSteps);
  const std::vector<double>& l = w.last_task_losses();  // steps x 3
  ASSERT_EQ(l.size(), static_cast<size_t>(kSteps * kTasks));
  for (int t = 0; t < kTasks; ++t) {
    double first = 0, last = 0;
    for (int64_t s = 0; s < kWindow; ++s) {
      first += l[s * kTasks + t];
      last += l[(kSteps - 1 - s) * kTasks + t];
    }
    EXPECT_LT(last, 0.8 * first) << kTaskNames[t] << ": " << first / kWindow << " -> "
                                 << last / kWindow;
  }
}

TEST(DeepFmLadderSpec, StagesAndSwitches) {
  ASSERT_EQ(ladder().size(), static_cast<size_t>(kStageCount));
  EXPECT_EQ(ladder()[kLiteralStrings].baseline, "preprocess");
  EXPECT_EQ(ladder()[kPreprocess].baseline, "preprocess");
  EXPECT_TRUE(ladder()[kAmp].baseline.empty());
  const Switches base = switches_for(kBaseline, Precision::bf16);
  EXPECT_FALSE(base.gram_fm || base.batched_transfer || base.preallocated_loss || base.prefetch);
  const Switches amp = switches_for(kAmp, Precision::bf16);
  EXPECT_TRUE(amp.gram_fm && amp.batched_transfer && amp.preallocated_loss && amp.loss_scaling);
  EXPECT_EQ(amp.precision, Precision::bf16);
  EXPECT_FALSE(amp.prefetch);
  EXPECT_TRUE(switches_for(kDataloader, Precision::f16).prefetch);
  // Fused activation + dropout from amp on (unless STAGEBENCH_DFM_FUSED_DROPOUT=off): the fp32
  // stages keep eager's separate passes. EveryStageMatchesItsBaseline checks the fused stages'
  // curves against the unfused baseline.
  EXPECT_FALSE(switches_for(kPreallocatedLoss, Precision::bf16).fused_dropout);
  const char* fused = std::getenv("STAGEBENCH_DFM_FUSED_DROPOUT");
  EXPECT_EQ(switches_for(kAutotune, Precision::f16).fused_dropout,
            !(fused && std::string(fused) == "off"));
}

}  // namespace
}  // namespace sb::deepfm
