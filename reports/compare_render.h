#pragma once
// The outputs of `stagebench compare`: a Markdown table per run (stage x metric with base,
// candidate, change, p-value, verdict and the rule that fired) or a JSON document.
#include <string>

#include <nlohmann/json.hpp>

#include "reports/compare.h"

namespace sb {

std::string compare_markdown(const CompareResult& result, const CompareOptions& options,
                             const std::string& base_name, const std::string& candidate_name);

// {"schema": "stagebench-compare/1", "base", "candidate", "alpha", "min_effect", "min_samples",
//  "regression", "suspected", "undecidable" (counts), "policy", "outcome" ("pass", "regression",
//  "undecidable", "nothing comparable"), "hint", "comparable", "problems": [...], "rows":
//  [{model, size, backend, stage, metric, base, candidate, change, p_value, verdict, rule,
//  regression, suspected, undecidable, inconclusive_reason, note}]}; NaN as null.
nlohmann::json compare_json(const CompareResult& result, const CompareOptions& options,
                            const std::string& base_name, const std::string& candidate_name);

}  // namespace sb
