#pragma once
// "PyTorch on this machine": the rows a run's reference block (`stagebench peer`) adds under its
// ladder, one per variant (fp32 eager, TF32, bf16 autocast, torch.compile), each with its time
// and its ratio to our stage 0 and to our fastest stage that passed (status ok). Shared by the
// Markdown and HTML reports and the viewer. A run without the block has no rows.
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schema/records.h"

namespace sb {

struct ReferenceRow {
  std::string label;  // "PyTorch on this machine: fp32-eager", "... (best)" for PyTorch's best
  // "ok"; "wrong" when it ran but its output failed the check against PyTorch fp32 eager;
  // "failed" when it did not run
  std::string status;
  std::string error;
  double rel_l2 = NAN;  // its output against PyTorch fp32 eager, where checked
  double median_ms = NAN, samples = NAN, peak_bytes = NAN, throughput = NAN;
  std::string unit;  // of throughput
  // Our stage's median over this variant's, so that it reads like the ladder's speedups: above
  // 1x PyTorch is faster. NaN when either time is unknown.
  double vs_stage0 = NAN, vs_best = NAN;
};

struct ReferenceTable {
  std::string name, torch, device, script, timing;
  // "" for the block's own rows (training steps, or the forward of an inference run); "inference"
  // for its inference section's, whose ratios are to our stages' inference figures
  // (summaries.inference: the forward alone, timed after each stage's training).
  std::string section;
  std::string best_stage;  // our fastest stage with status ok
  std::string best;        // PyTorch's best: its fastest variant that passed the check
  std::vector<ReferenceRow> rows;
};

// The rows of a run (a run object is read leniently first); empty when it has no reference block.
ReferenceTable reference_table(const RunRecord& run);
ReferenceTable reference_table(const nlohmann::json& run);
// The block's inference section (a training model's forward alone, PyTorch's inference menu)
// against our stages' inference figures; empty when the block has none.
ReferenceTable reference_inference_table(const RunRecord& run);
ReferenceTable reference_inference_table(const nlohmann::json& run);

std::vector<std::string> reference_table_header();
std::vector<std::string> reference_table_cells(const ReferenceRow& row);
// The sentence under the table: what the ratios mean, where the rows came from.
std::string reference_table_legend(const ReferenceTable& table);

// "#### PyTorch on this machine", the Markdown table, its legend and one note per failed
// variant, then the same for the inference section ("#### PyTorch on this machine: inference")
// where the block has one; "" when the run has no reference block.
std::string reference_table_text(const RunRecord& run);
std::string reference_table_text(const nlohmann::json& run);

}  // namespace sb
