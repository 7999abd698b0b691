#pragma once
// `stagebench compare BASE CANDIDATE`: matches runs by (model, size, backend, mode) and stages by
// id, judges each metric (time, speedup_vs_baseline, memory, throughput, cosine) SAME / FASTER /
// SLOWER / AMBIGUOUS, and applies the thresholds file's rules (docs/compare.md). Works on any
// JSON value: the caller validates documents (schema/document.h), this code never trusts
// their shape.
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/verdict.h"

namespace sb {

struct MetricComparison {
  std::string model, size, backend, stage, metric;  // metric "status" for status changes
  double base = NAN, candidate = NAN, change = NAN /*relative*/, p_value = NAN;
  Verdict verdict = Verdict::ambiguous;
  std::string rule;  // the thresholds rule that fired ("line 3: enformer/cpu/*/time: +5%"), or
                     // the status rule; "" when none
  bool regression = false;
  std::string note;
};

struct CompareOptions {
  double alpha = 0.05;
  double min_effect = 0.02;
  size_t min_samples = 5;
  std::string thresholds_text;  // empty: none
};

struct CompareResult {
  std::vector<MetricComparison> rows;
  bool regression = false;
  std::vector<std::string> problems;  // runs or stages found on one side only, and the like
  bool comparable() const;            // at least one stage was compared
};

// Throws std::invalid_argument ("thresholds line N: ...") when the thresholds text is bad.
CompareResult compare_documents(const nlohmann::json& base, const nlohmann::json& candidate,
                                const CompareOptions& o);

}  // namespace sb
