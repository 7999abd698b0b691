#pragma once
// `stagebench compare BASE CANDIDATE`: matches runs by (model, size, backend, mode) and stages by
// id, judges each metric (time, speedup_vs_baseline, memory, throughput, cosine) SAME / FASTER /
// SLOWER / AMBIGUOUS, and applies the thresholds file's rules (docs/compare.md). Reads the
// documents into schema's records (schema/records.h) leniently: the caller validates documents
// (schema/document.h), this code never trusts their shape.
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/thresholds.h"
#include "reports/verdict.h"
#include "schema/records.h"

namespace sb {

struct MetricComparison {
  std::string model, size, backend, stage, metric;  // metric "status" for status changes
  double base = NAN, candidate = NAN, change = NAN /*relative*/, p_value = NAN;
  Verdict verdict = Verdict::ambiguous;
  std::string rule;  // the thresholds rule that fired ("line 3: enformer/cpu/*/time: +5%"), or
                     // the status rule; "" when none
  bool regression = false;
  // A rule gates this row but the data could not judge it (too few samples, no interval, a
  // change that noise cannot rule out beyond the rule): why, in `undecidable_reason`.
  bool undecidable = false;
  // A large effect on too few samples beyond a rule (verdict SLOWER?): see docs/compare.md.
  bool suspected = false;
  std::string inconclusive_reason;  // why undecidable or only suspected ("samples 4 vs 4 < min 5")
  std::string note;
};

struct CompareOptions {
  double alpha = 0.05;
  double min_effect = 0.02;
  size_t min_samples = 5;
  std::string thresholds_text;  // empty: none
  // Overrides the thresholds file's `policy:` line (--allow-inconclusive sets pass).
  std::optional<InconclusivePolicy> inconclusive;
};

// What the comparison says, in exit-code order: pass 0, regression 1, nothing comparable 2,
// undecidable 3 (docs/compare.md).
enum class CompareOutcome { pass, regression, nothing_comparable, undecidable };

struct CompareResult {
  std::vector<MetricComparison> rows;
  bool regression = false;  // a rule broken or a status regression: fails whatever the policy
  size_t suspected = 0, undecidable = 0;                        // rows so marked
  InconclusivePolicy policy = InconclusivePolicy::undecidable;  // options', else the file's
  std::vector<std::string> problems;  // runs or stages found on one side only, and the like
  // What BASE measured and CANDIDATE lost: a run or stage only in base, or a stage measured
  // (ok or invalid) in base and failed or skipped in candidate. Fails the comparison whatever
  // the thresholds say: a gate must not pass because what it gated is gone (docs/compare.md).
  std::vector<std::string> vanished;
  bool comparable() const;  // at least one stage was compared
  // regression when one is found or something vanished, or suspected ones under policy undecidable
  // or fail, or undecidable ones under policy fail; undecidable when some are under policy
  // undecidable.
  CompareOutcome outcome() const;
  // One line saying what would make the suspected and undecidable comparisons decidable;
  // "" when there are none.
  std::string hint;
};

// Throws std::invalid_argument ("thresholds line N: ...") when the thresholds text is bad.
CompareResult compare_documents(const nlohmann::json& base, const nlohmann::json& candidate,
                                const CompareOptions& o);
// The same on runs already read into records (the viewer's documents).
CompareResult compare_runs(const std::vector<RunRecord>& base,
                           const std::vector<RunRecord>& candidate, const CompareOptions& o);

}  // namespace sb
