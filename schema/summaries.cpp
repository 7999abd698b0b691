#include "schema/summaries.h"

#include "schema/json_member.h"

namespace sb::summary {
namespace {

using json = nlohmann::json;

Number number_of(const json& block, const char* key) {
  const json& v = json_member(block, key);
  return v.is_number() ? Number(v.get<double>()) : std::nullopt;
}

}  // namespace

const char* unit_suffix(Unit u) {
  switch (u) {
    case Unit::ms:
      return "ms";
    case Unit::bytes:
      return "bytes";
    case Unit::count:
      return "count";
    case Unit::ratio:
      return "x";
    case Unit::per_s:
      return "per_s";
    case Unit::none:
    case Unit::block:
      break;
  }
  return "";
}

TrainSummary read_train_summary(const json& summaries) {
  TrainSummary t;
  const json& phases = json_member(summaries, kPhasesMs.key);
  t.has_phases = phases.is_object();
  for (size_t i = 0; i < kStepPhaseCount; ++i) t.phase_ms[i] = number_of(phases, kStepPhases[i]);
  const json& split = json_member(summaries, kMemorySplitBytes.key);
  for (size_t i = 0; i < kMemoryRoleCount; ++i)
    t.memory_split_bytes[i] = number_of(split, kMemoryRoles[i]);
  t.last_loss = number_of(summaries, kLastLoss.key);
  t.loss_scale = number_of(summaries, kLossScale.key);
  t.skipped_steps = number_of(summaries, kSkippedSteps.key);
  t.steps = number_of(summaries, kSteps.key);
  const json& inference = json_member(summaries, kInference.key);
  t.infer_median_ms = number_of(inference, kInferenceMedianMs.key);
  t.infer_fps = number_of(inference, kInferenceFps.key);
  t.infer_claimed_speedup = number_of(inference, kInferenceClaimedSpeedup.key);
  return t;
}

std::vector<double> phase_samples_ms(const json& summaries, const std::string& phase) {
  std::vector<double> out;
  const json& samples = json_member(json_member(summaries, kPhaseSamplesMs.key), phase.c_str());
  if (!samples.is_array()) return out;
  for (const json& v : samples)
    if (v.is_number()) out.push_back(v.get<double>());
  return out;
}

}  // namespace sb::summary
