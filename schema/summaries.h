#pragma once
// The figures models put in a stage's open `summaries` block, each named once with its unit
// (nvbench's summaries: a key, a unit, what it is). The models that write them and the reports
// and viewer that read them spell the names through these declarations only. The block stays
// open: a model adds figures of its own (Geneformer's graph passes, DeepFM's loader), and
// readers keep what they do not know.
#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schema/records.h"

namespace sb::summary {

enum class Unit {
  none,   // a plain number (a loss, a loss scale)
  ms,     // milliseconds of wall time
  bytes,  // bytes
  count,  // a whole count (steps)
  ratio,  // a ratio of two times ("x"): a speedup
  per_s,  // items per second
  block,  // an object of figures, each with the unit its own declaration gives
};

// The unit as a column or key suffix: "ms", "bytes", "count", "x", "per_s"; "" for none and
// block.
const char* unit_suffix(Unit u);

struct Figure {
  const char* key;
  Unit unit;
  const char* what;
};

// Training stages (DeepFM, DynUNet): a step's phases and memory, after the timed samples.
inline constexpr Figure kPhasesMs{"phases_ms", Unit::ms,
                                  "each phase's median over synchronized steps, by phase"};
inline constexpr Figure kPhaseSamplesMs{"phase_samples_ms", Unit::ms,
                                        "each synchronized step's time, by phase"};
inline constexpr Figure kMemorySplitBytes{"memory_split_bytes", Unit::bytes,
                                          "the training step's memory, by role"};
inline constexpr Figure kLastLoss{"last_loss", Unit::none, "the loss of the last step"};
inline constexpr Figure kLossScale{"loss_scale", Unit::none, "the dynamic loss scale at the end"};
inline constexpr Figure kSkippedSteps{"skipped_steps", Unit::count,
                                      "steps skipped for a non-finite gradient"};
inline constexpr Figure kSteps{"steps", Unit::count, "optimizer steps taken"};
// The stage's inference pass, timed after its training (DynUNet).
inline constexpr Figure kInference{"inference", Unit::block, "the stage's forward pass alone"};
inline constexpr Figure kInferenceMedianMs{"median_ms", Unit::ms, "median forward time"};
inline constexpr Figure kInferenceMinMs{"min_ms", Unit::ms, "fastest forward time"};
inline constexpr Figure kInferenceSamples{"samples", Unit::count, "timed forwards"};
inline constexpr Figure kInferenceFps{"fps", Unit::per_s, "items per second of the forward"};
inline constexpr Figure kInferenceGflops{"gflops", Unit::none, "GFLOP of one forward"};
inline constexpr Figure kInferenceClaimedSpeedup{
    "claimed_speedup", Unit::ratio, "the document's cumulative inference speedup for the stage"};

// The keys inside phases_ms (and phase_samples_ms), in step order.
inline constexpr size_t kStepPhaseCount = 5;
inline constexpr std::array<const char*, kStepPhaseCount> kStepPhases{"data", "h2d", "forward",
                                                                      "backward", "optimizer"};
// The part of forward that computes the losses: in phase_samples_ms only (DeepFM).
inline constexpr const char* kLossPhase = "loss";
// The keys inside memory_split_bytes.
inline constexpr size_t kMemoryRoleCount = 4;
inline constexpr std::array<const char*, kMemoryRoleCount> kMemoryRoles{
    "parameters", "gradients", "optimizer_state", "activations"};

// The writers' side: phases_ms's (or phase_samples_ms's) object, one value per step phase, and
// memory_split_bytes's, one per role. Each value keeps its type (a median, a list of samples, a
// byte count), so what is written is what a hand-built object would be.
template <typename T>
nlohmann::json by_phase(const T& data, const T& h2d, const T& forward, const T& backward,
                        const T& optimizer) {
  return {{kStepPhases[0], data},
          {kStepPhases[1], h2d},
          {kStepPhases[2], forward},
          {kStepPhases[3], backward},
          {kStepPhases[4], optimizer}};
}
template <typename T>
nlohmann::json by_role(const T& parameters, const T& gradients, const T& optimizer_state,
                       const T& activations) {
  return {{kMemoryRoles[0], parameters},
          {kMemoryRoles[1], gradients},
          {kMemoryRoles[2], optimizer_state},
          {kMemoryRoles[3], activations}};
}

// What a training stage's summaries carry, read leniently: a figure that is absent or not a
// number is unknown.
struct TrainSummary {
  bool has_phases = false;  // phases_ms is an object
  std::array<Number, kStepPhaseCount> phase_ms{};
  std::array<Number, kMemoryRoleCount> memory_split_bytes{};
  Number last_loss, loss_scale, skipped_steps, steps;
  Number infer_median_ms, infer_fps, infer_claimed_speedup;
};
TrainSummary read_train_summary(const nlohmann::json& summaries);

// Each step's time of `phase` (phase_samples_ms.<phase>), the numbers among them; empty when
// the stage recorded none.
std::vector<double> phase_samples_ms(const nlohmann::json& summaries, const std::string& phase);

}  // namespace sb::summary
