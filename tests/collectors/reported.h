#pragma once
// What a collector reports into a fresh stage record, as the JSON the result file holds.
#include <nlohmann/json.hpp>

#include "collectors/collector.h"

namespace sb::testing {

inline nlohmann::json reported(const Collector& collector, double items_per_sample) {
  StageRecord stage;
  collector.report(stage, items_per_sample);
  return stage;
}

}  // namespace sb::testing
