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

// The claimed range widened by 10% of its bounds: the documents state no tolerance of their own,
// and a figure measured on other hardware is not exact. Below, the slack is at most half the
// claimed gain, so that "10-15% faster" (1.10-1.15x) widens to 1.05-1.265x, not to 0.99x: a
// claim of a speedup is never confirmed by an interval that admits none.
inline constexpr double kClaimSlack = 0.10;
// [lo, hi] of the claimed range widened as above.
ClaimRange widened_claim(const ClaimRange& claimed);

// The verdict of a 95% interval [lo, hi] against a claimed range (widened_claim): the rule below.
std::string interval_verdict(const ClaimRange& claimed, double lo, double hi);

// A claim's verdict from the stage's 95% interval of its cumulative speedup:
//  - "confirmed": the whole interval lies inside the widened claimed range;
//  - "not reproduced (below)" / "not reproduced (above)": it lies wholly under / over it;
//  - "inconclusive": it straddles a bound of the widened range.
// "" when there is no claim or no interval, for stage 0 (the reference: nothing claimed), for a
// stage that is not ok (an invalid stage's speed is not a result), and when `unmet` says why the
// stage cannot stand for the claim (claim_precondition).
std::string claim_verdict(const StageRecord& stage, int index, const std::string& unmet = {});
std::string claim_verdict(const nlohmann::json& stage, int index);

// What a stage's cumulative claim needs of the stages before it: its baseline (stage 0, or the
// phase's first stage that speedup.baseline names) measured `ok` (it is the ratio's
// denominator), and every stage of its phase between measured (ok or invalid), so that the stage
// holds every documented step before it. "" when met, else why not ("stage 0 is invalid",
// "stage bf16-mixed was skipped").
std::string claim_precondition(const std::vector<StageRecord>& stages, size_t index);

// Title line, the Markdown table, a legend, then one bullet per stage that is not ok (its
// status and reasons) and per documented claim (its source and words).
std::string ladder_table_text(const RunRecord& run);
std::string ladder_table_text(const nlohmann::json& run);  // read leniently first

// The table's cells for one stage, shared by the Markdown and HTML reports.
std::vector<std::string> ladder_table_header();
std::vector<std::string> ladder_table_cells(const StageRow& stage);

// Median time with the half p10-p90 range, to about four significant digits: "350.2 ± 4.1".
std::string format_time_with_spread(const StageRow& stage);

}  // namespace sb
