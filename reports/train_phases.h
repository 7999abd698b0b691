#pragma once
// Training runs ("mode": "train"): the step's phases (data, h2d, forward, backward, optimizer;
// medians of a few instrumented steps) with their sum and shares, and the memory split
// (parameters, gradients, optimizer state, activations), per training stage, from the model's
// summaries (StageRow::train). Data-phase stages carry no phases and have no row. Shared by the
// Markdown, CSV and HTML reports and the viewer.
#include <string>
#include <vector>

#include "reports/stage_row.h"

namespace sb {

// The stages of a training run whose summaries carry phases_ms, in ladder order; none for an
// inference run.
std::vector<const StageRow*> train_phase_stages(const RunSummary& run);

// The sum of the known phases; NaN when none is known.
double phase_sum_ms(const StageRow& stage);
// One phase's fraction of phase_sum_ms; NaN when either is unknown or the sum is not positive.
double phase_share(const StageRow& stage, size_t phase);

// People's names for the phases and the memory split: "forward", "optimizer state".
const std::vector<std::string>& train_phase_names();
const std::vector<std::string>& memory_split_names();

// The table's header and cells: phases as "1.90 (32%)", their sum, the memory split in MB.
std::vector<std::string> train_phases_header();
std::vector<std::string> train_phases_cells(const StageRow& stage);

// The legend under the table, and a note per stage whose steps were skipped (AMP overflow).
std::string train_phases_legend();
std::vector<std::string> train_phases_notes(const RunSummary& run);

// "#### Training step phases", the Markdown table, the legend and notes; "" when the run has no
// training stage with phases.
std::string train_phases_text(const RunSummary& run);

// The loss-curve check for the ladder's correctness column: "loss Δ 3e-6, cos 1.000000";
// "" when the stage has no loss figure.
std::string loss_check_text(const StageRow& stage);

}  // namespace sb
