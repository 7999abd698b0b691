#pragma once
// The per-stage ladder table the documents show (seed 000's "Time, Memory, Speedup,
// Correctness", seed 004's incremental "+X%", plus claimed versus measured), rendered from one
// stagebench/1 run object. Any JSON is accepted: what is missing or mistyped shows as "-".
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schema/records.h"

namespace sb {

struct StageRow;

// The cumulative speedup a claim states, as a range: lo == hi for a single figure. The record's
// `speedup` is the low end; when the claim's words give a range starting there ("1.5-3x",
// "~10-15% faster" for 1.10, "300-600 samples/s"), hi is its upper end. NaN when no speedup.
struct ClaimRange {
  double lo = NAN, hi = NAN;
};
ClaimRange claim_range(const ClaimRecord& claim);

// "confirmed" when the measured 95% interval overlaps the claimed range (contains the figure),
// "below claim" when the whole interval is under it, "above claim" when over it; "" when there is
// no claim or no interval, for stage 0 (the reference: nothing claimed), and for a stage that is
// not ok (an invalid stage's speed is not a result).
std::string claim_verdict(const StageRecord& stage, int index);
std::string claim_verdict(const nlohmann::json& stage, int index);

// Title line, the Markdown table, a legend, then one bullet per stage that is not ok (its
// status and reasons) and per documented claim (its source and words).
std::string ladder_table_text(const nlohmann::json& run);

// The table's cells for one stage, shared by the Markdown and HTML reports.
std::vector<std::string> ladder_table_header();
std::vector<std::string> ladder_table_cells(const StageRow& stage);

// Median time with the half p10-p90 range, to about four significant digits: "350.2 ± 4.1".
std::string format_time_with_spread(const StageRow& stage);

}  // namespace sb
