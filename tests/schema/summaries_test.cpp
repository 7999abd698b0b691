// The summaries' names are declared once with their units: what a model writes through them the
// reports read back through them, and a figure of the wrong type is unknown, not an error.
#include "schema/summaries.h"

#include <gtest/gtest.h>

#include <set>

namespace sb::summary {
namespace {

using json = nlohmann::json;

TEST(Summaries, EveryFigureHasAUnitAndTheKeysAreDistinct) {
  const Figure figures[] = {kPhasesMs, kPhaseSamplesMs, kMemorySplitBytes,
                            kLastLoss, kLossScale,      kSkippedSteps,
                            kSteps,    kInference};
  std::set<std::string> keys;
  for (const Figure& f : figures) {
    EXPECT_TRUE(keys.insert(f.key).second) << f.key;
    EXPECT_NE(std::string(f.what), "") << f.key;
  }
  EXPECT_STREQ(unit_suffix(kPhasesMs.unit), "ms");
  EXPECT_STREQ(unit_suffix(kMemorySplitBytes.unit), "bytes");
  EXPECT_STREQ(unit_suffix(kInferenceClaimedSpeedup.unit), "x");
  EXPECT_STREQ(unit_suffix(kInferenceFps.unit), "per_s");
  // The figures' key names end in their unit where the name carries one.
  for (const Figure& f : {kPhasesMs, kPhaseSamplesMs, kMemorySplitBytes, kInferenceMedianMs}) {
    const std::string key = f.key, suffix = std::string("_") + unit_suffix(f.unit);
    EXPECT_EQ(key.substr(key.size() - suffix.size()), suffix) << key;
  }
}

TEST(Summaries, WhatTheWritersPutTheReadersRead) {
  json s = json::object();
  s[kPhasesMs.key] = by_phase(1.0, 2.0, 3.0, 4.0, 5.0);
  s[kPhaseSamplesMs.key] = by_phase(std::vector<double>{1, 1.5}, {2}, {3}, {4}, {5});
  s[kPhaseSamplesMs.key][kLossPhase] = std::vector<double>{0.5, 0.25};
  s[kMemorySplitBytes.key] = by_role<uint64_t>(10, 20, 40, 80);
  s[kSteps.key] = 7;
  s[kLastLoss.key] = "nan";  // not a number: unknown
  s[kInference.key] = {{kInferenceMedianMs.key, 8.0}, {kInferenceFps.key, 125.0}};
  // Byte counts stay integers, as a hand-built object wrote them.
  EXPECT_EQ(s[kMemorySplitBytes.key].dump(),
            R"({"activations":80,"gradients":20,"optimizer_state":40,"parameters":10})");
  const TrainSummary t = read_train_summary(s);
  EXPECT_TRUE(t.has_phases);
  for (size_t i = 0; i < kStepPhaseCount; ++i) EXPECT_EQ(t.phase_ms[i], double(i + 1));
  EXPECT_EQ(t.memory_split_bytes[kMemoryRoleCount - 1], 80);
  EXPECT_EQ(t.steps, 7);
  EXPECT_FALSE(t.last_loss);
  EXPECT_FALSE(t.loss_scale);
  EXPECT_EQ(t.infer_median_ms, 8);
  EXPECT_EQ(t.infer_fps, 125);
  EXPECT_FALSE(t.infer_claimed_speedup);
  EXPECT_EQ(phase_samples_ms(s, "data"), (std::vector<double>{1, 1.5}));
  EXPECT_EQ(phase_samples_ms(s, kLossPhase), (std::vector<double>{0.5, 0.25}));
  EXPECT_TRUE(phase_samples_ms(s, "nope").empty());
  EXPECT_FALSE(read_train_summary(json::array()).has_phases);
}

}  // namespace
}  // namespace sb::summary
