#pragma once
// What the runner knows about one stage while and after measuring it (runner-internal).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "contract/workload.h"
#include "harness/stopping.h"

namespace sb {

struct StageState {
  size_t index = 0;  // into Workload::stages()
  StageSpec spec;
  enum class Phase { kLive, kSkipped, kFailed } phase = Phase::kLive;
  std::string reason;            // why skipped or failed
  bool prepared = false;         // release() owed
  uint64_t resident_host = 0;    // bytes prepare() left allocated, host tensors
  uint64_t resident_device = 0;  // and device buffers
  WorkCounts counts;
  std::vector<double> samples_s;  // one per measured round, in round order
  std::vector<float> output;      // from the last measured run
  bool has_output = false;
  std::optional<TrainTrace> trace;  // training stages: the check's loss curve and parameters
  std::vector<std::unique_ptr<Collector>> collectors;  // available ones only
  std::unique_ptr<StoppingRule> rule;
  bool done = false;                                    // the rule said done at the last check
  nlohmann::json summaries = nlohmann::json::object();  // Workload::summaries, when measured

  bool live() const { return phase == Phase::kLive; }
  bool measured() const { return live() && !samples_s.empty(); }
};

}  // namespace sb
