#pragma once
// The per-stage ladder table the documents show (seed 000's "Time, Memory, Speedup,
// Correctness", seed 004's incremental "+X%", plus claimed versus measured), rendered from one
// stagebench/1 run object. Any JSON is accepted: what is missing or mistyped shows as "-".
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schema/records.h"

namespace sb {

struct StageRow;

// "confirmed" when the claim lies inside the measured 95% interval, "below claim" when the whole
// interval is under it, "above claim" when over it; "" when there is no claim or no interval.
std::string claim_verdict(const StageRecord& stage);
std::string claim_verdict(const nlohmann::json& stage);

// Title line, the Markdown table, a legend, then one bullet per stage that is not ok (its
// status and reasons) and per documented claim (its source and words).
std::string ladder_table_text(const nlohmann::json& run);

// The table's cells for one stage, shared by the Markdown and HTML reports.
std::vector<std::string> ladder_table_header();
std::vector<std::string> ladder_table_cells(const StageRow& stage);

// Median time with the half p10-p90 range, to about four significant digits: "350.2 ± 4.1".
std::string format_time_with_spread(const StageRow& stage);

}  // namespace sb
