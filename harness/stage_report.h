#pragma once
// Turns the runner's per-stage state into the schema's run record: time statistics, validity,
// correctness against stage 0, paired speedups, throughput, and the collectors' reports.
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/runner.h"
#include "harness/stage_state.h"
#include "schema/records.h"

namespace sb {

// A stage record with the spec's identity, claim and tolerance, numbers unknown until filled in.
StageRecord empty_stage_record(const StageSpec& spec);

// A run record's identity (model, size, backend, device, mode, params), no stages yet.
// stages[i]'s reference for the paired-noise criterion (paired_reference.h): its baseline's
// samples (the stage its spec names, else stage 0), or for a stage that is its own baseline the
// ladder's drift per round.
std::vector<double> stage_reference(const std::vector<StageState>& stages, size_t i);

RunRecord run_header(const RunInfo& info, const nlohmann::json& params, bool complete);

// complete = false marks a snapshot taken while rounds are still going (on_partial).
RunRecord build_run(const RunInfo& info, const nlohmann::json& params,
                    const std::vector<StageState>& stages, const RunnerOptions& opt, bool complete);

// Throughput per median sample time; roofline_frac is the time the work needs at the device's
// ceilings, max(flops / peak_flops, bytes / peak_bandwidth), divided by the measured median
// (1 = at the roofline). Zero counts or ceilings are unknown.
ThroughputRecord throughput_record(const WorkCounts& counts, double median_s,
                                   const std::optional<DeviceCeilings>& ceilings);

}  // namespace sb
