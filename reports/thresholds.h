#pragma once
// The thresholds file of `stagebench compare` (docs/compare.md): one rule a line,
//   model/backend/stage/metric: +5%          (or model/size/backend/stage/metric: ...)
//   */*/*/cosine: >= 0.9999
// with '*' matching any text inside a field, '#' starting a comment.
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

// Throws std::invalid_argument "line N: ..." naming the first bad line and what is wrong.
std::vector<ThresholdRule> parse_thresholds(const std::string& text);

bool rule_matches(const ThresholdRule& rule, const std::string& model, const std::string& size,
                  const std::string& backend, const std::string& stage, const std::string& metric);

// '*' matches any run of characters (also none); everything else matches itself.
bool glob_match(const std::string& pattern, const std::string& text);

}  // namespace sb
