#pragma once
// The thresholds file of `stagebench compare` (docs/compare.md): one rule a line,
//   model/backend/stage/metric: +5%          (or model/size/backend/stage/metric: ...)
//   */*/*/cosine: >= 0.9999
// with '*' matching any text inside a field, '#' starting a comment.
#include <optional>
#include <string>
#include <vector>

namespace sb {

// The metrics compare judges, in the order its table lists them.
const std::vector<std::string>& compared_metrics();  // time, speedup_vs_baseline, memory, ...

// True for metrics where a higher value is worse (time, memory).
bool higher_is_worse(const std::string& metric);

enum class RuleKind {
  relative,  // a change beyond `value` (a fraction, signed in the bad direction) that is
             // significant
  at_least,  // the candidate's value must be >= value (> when strict)
  at_most,   // the candidate's value must be <= value (< when strict)
};

struct ThresholdRule {
  int line = 0;
  std::string text;  // the line as written, trimmed, without its comment
  std::string model, size = "*", backend, stage, metric;
  RuleKind kind = RuleKind::relative;
  double value = 0;
  bool strict = false;
};

// What compare does with comparisons a rule gates but the data could not judge (undecidable) and
// with suspected regressions (a large effect on too few samples): the thresholds file's line
//   policy: inconclusive=undecidable | pass | fail
// (docs/compare.md). undecidable (the default): exit 3 for undecidable comparisons, suspected
// regressions fail (exit 1); pass: both are reported and the gate passes; fail: both fail (exit 1).
enum class InconclusivePolicy { undecidable, pass, fail };

// "undecidable", "pass", "fail".
const char* policy_name(InconclusivePolicy policy);

// Throws std::invalid_argument "line N: ..." naming the first bad line and what is wrong.
// `policy:` lines are not rules: the last one sets *policy when policy is given.
std::vector<ThresholdRule> parse_thresholds(const std::string& text,
                                            std::optional<InconclusivePolicy>* policy = nullptr);

bool rule_matches(const ThresholdRule& rule, const std::string& model, const std::string& size,
                  const std::string& backend, const std::string& stage, const std::string& metric);

// '*' matches any run of characters (also none); everything else matches itself.
bool glob_match(const std::string& pattern, const std::string& text);

}  // namespace sb
