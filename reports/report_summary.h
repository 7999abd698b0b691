#pragma once
// `stagebench report --format summary`: one line per run, what a user reads after the main job
// before opening any table: the stages' outcome counts, the fastest stage that stands (status
// ok, checked against its baseline) with its cumulative speedup and 95% interval, and its claim's
// verdict, or why no stage stands.
#include <string>
#include <vector>

#include "reports/report.h"
#include "reports/stage_row.h"

namespace sb {

// The line for one run, without the file name: "enformer / small / cpu on X: 8 stages (5 ok,
// 2 invalid, 1 skipped); fastest ok: bf16 3.12x [2.95, 3.30] vs original, claim 2x: not
// reproduced (above)".
std::string run_summary_line(const RunSummary& run);

// Each input's name, then one indented line per run.
std::string report_summary(const std::vector<ReportInput>& inputs);

}  // namespace sb
