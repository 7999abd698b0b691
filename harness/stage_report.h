#pragma once
// Turns the runner's per-stage state into the schema's run object: time statistics, validity,
// correctness against stage 0, paired speedups, throughput, and the collectors' reports.
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/runner.h"
#include "harness/stage_state.h"

namespace sb {

// A stage result with every key of the schema, numbers null (unknown) until filled in.
nlohmann::json empty_stage_result(const StageSpec& spec);

// complete = false marks a snapshot taken while rounds are still going (on_partial).
nlohmann::json build_run(const RunInfo& info, const nlohmann::json& params,
                         const std::vector<StageState>& stages, const RunnerOptions& opt,
                         bool complete);

// Throughput per median sample time; roofline_frac is the time the work needs at the device's
// ceilings, max(flops / peak_flops, bytes / peak_bandwidth), divided by the measured median
// (1 = at the roofline). Zero counts or ceilings are unknown and give null.
nlohmann::json throughput_json(const WorkCounts& counts, double median_s,
                               const std::optional<DeviceCeilings>& ceilings);

}  // namespace sb
