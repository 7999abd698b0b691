#pragma once
// Seed 004's table for a training run whose stages also timed their inference (DynUNet):
// per stage, training and inference throughput, each with its change over the previous row
// measured beside the document's claimed change, and the memory the stage held. Shared by the
// Markdown and HTML reports.
#include <cmath>
#include <string>
#include <vector>

#include "reports/stage_row.h"

namespace sb {

// The stages with an inference figure, in ladder order (none for other runs).
std::vector<const StageRow*> frames_table_stages(const RunSummary& run);

// The numbers behind one row: changes as fractions (+0.52 for +52%), NaN where unknown. A
// change is taken over the last row above with a claim of its own (see frames_table.cpp).
struct FramesRow {
  const StageRow* stage = nullptr;
  double train_change = NAN, train_claimed_change = NAN;
  double infer_change = NAN, infer_claimed_change = NAN;
  double held_bytes = NAN;  // the stage's peak: device memory, else the model's host tensors
};
std::vector<FramesRow> frames_table_values(const RunSummary& run);

std::vector<std::string> frames_table_header(const RunSummary& run);
// One row per stage of frames_table_stages(run), in its order.
std::vector<std::vector<std::string>> frames_table_rows(const RunSummary& run);
std::string frames_table_legend();

// "#### Training and inference", the Markdown table and its legend; "" when the run has none.
std::string frames_table_text(const RunSummary& run);

}  // namespace sb
