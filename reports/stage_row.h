#pragma once
// One stage of a stagebench/1 run as plain numbers and strings, made from the schema's records
// (schema/records.h): every renderer (markdown, CSV, HTML, the viewer) formats the same values.
// The run is read leniently: a value that is missing, null or of the wrong type becomes NaN or "".
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schema/records.h"
#include "schema/summaries.h"

namespace sb {

// j[key] when j is an object holding key, else a null value: safe on any JSON shape.
const nlohmann::json& member(const nlohmann::json& j, const char* key);

// A training step's phases (summaries.phases_ms) and the memory split
// (summaries.memory_split_bytes), by their keys in the summaries, in this order
// (schema/summaries.h declares them).
inline constexpr size_t kTrainPhaseCount = summary::kStepPhaseCount;
inline constexpr size_t kMemorySplitCount = summary::kMemoryRoleCount;
const std::array<const char*, kTrainPhaseCount>& train_phase_keys();    // data, h2d, ... optimizer
const std::array<const char*, kMemorySplitCount>& memory_split_keys();  // parameters, ...

// What a training stage's summaries carry; all NaN for inference and data-phase stages.
struct TrainFigures {
  bool has_phases = false;  // summaries.phases_ms is an object
  std::array<double, kTrainPhaseCount> phase_ms{NAN, NAN, NAN, NAN, NAN};  // medians, ms
  std::array<double, kMemorySplitCount> memory_split_bytes{NAN, NAN, NAN, NAN};
  double loss_scale = NAN, skipped_steps = NAN, steps = NAN, last_loss = NAN;
  // The stage's inference pass, timed after its training (summaries.inference): median ms,
  // items per second, and the document's claimed cumulative inference speedup.
  double infer_ms = NAN, infer_fps = NAN, infer_claim = NAN;
};

struct StageRow {
  int index = 0;
  std::string id, title, status, reason;

  double median_ms = NAN, p10_ms = NAN, p90_ms = NAN, stddev_ms = NAN, samples = NAN;
  std::string stop_reason;
  double speedup = NAN, speedup_lo = NAN, speedup_hi = NAN, vs_previous = NAN;
  std::string baseline;  // the stage `speedup` is measured against; "" for stage 0

  double host_rss_bytes = NAN;     // memory.host_peak_bytes: the process's RSS high-water mark
  double device_peak_bytes = NAN;  // memory.device_peak_bytes
  double model_peak_bytes = NAN;   // the model's own tensors: device buffers or host tensors
  std::string model_peak_source;   // "device" or "host tensors"; "" when unknown

  double items_per_s = NAN, gflops = NAN, roofline_frac = NAN;
  std::string item_name;

  double cosine = NAN, tolerance = NAN;
  int correctness_pass = -1;  // 1 pass, 0 fail, -1 not checked
  std::string basis;
  // Training stages: the loss curve's largest relative difference from the baseline's, and the
  // bound it is held to.
  double loss_max_rel = NAN, loss_tolerance = NAN;
  TrainFigures train;

  double claim_speedup = NAN;     // the claim's figure, or the low end of its range
  double claim_speedup_hi = NAN;  // the range's upper end (== claim_speedup for a single figure)
  std::string claim_source, claim_text, claim_verdict;
  // Why a claim gets no verdict though the stage is ok ("stage 0 is invalid", "stage
  // bf16-mixed was skipped"): claim_precondition, reports/ladder_table.h.
  std::string claim_unmet;
  // PyTorch's own ratio for the stage on this machine, from the run's peer block: the median
  // of PyTorch's counterpart of the stage's baseline (stage 0's, fp32 eager) over that of its
  // fastest correct counterpart of this stage (claim.pytorch). NaN when the run has no peer
  // block, when the stage names no counterpart (pytorch_note then says why PyTorch has none),
  // or when no counterpart ran correctly (pytorch_note says so).
  double pytorch_speedup = NAN;
  std::string pytorch_variant;  // the counterpart that gave pytorch_speedup
  std::string pytorch_note;
  // A claim about one phase of the step (reports/phase_verdict.h): its verdict, and the line
  // that says what was compared ("" for a claim about the whole stage).
  std::string phase_claim_verdict, phase_claim;
};

struct RunSummary {
  std::string model, size, backend, device, mode;
  std::vector<StageRow> stages;
};

// "model / size / backend on device", with the mode when it is not inference.
std::string run_title(const RunSummary& run);

RunSummary summarize_run(const RunRecord& run);
RunSummary summarize_run(const nlohmann::json& run);

// The number at j[key] when j is an object holding a number there, NaN otherwise.
double number_at(const nlohmann::json& j, const char* key);
// The string at j[key] when j is an object holding a string there, fallback otherwise.
std::string string_at(const nlohmann::json& j, const char* key, const std::string& fallback = "");

}  // namespace sb
