#include "reports/thresholds.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace sb {
namespace {

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  return parts;
}

[[noreturn]] void fail(int line, const std::string& what) {
  throw std::invalid_argument("line " + std::to_string(line) + ": " + what);
}

double parse_number(const std::string& text, int line, const std::string& rule) {
  const std::string t = trim(text);
  char* end = nullptr;
  errno = 0;
  const double v = t.empty() ? NAN : std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || errno == ERANGE || !std::isfinite(v))
    fail(line, "bad number '" + t + "' in '" + rule + "'");
  return v;
}

std::string metric_name(const std::string& name, int line) {
  if (name == "speedup") return "speedup_vs_baseline";
  const auto& known = compared_metrics();
  if (std::find(known.begin(), known.end(), name) != known.end()) return name;
  std::string list;
  for (const auto& m : known) list += (list.empty() ? "" : ", ") + m;
  fail(line, "unknown metric '" + name + "' (expected one of " + list + ")");
}

void parse_condition(ThresholdRule& r, const std::string& condition) {
  const std::string c = trim(condition);
  const std::string usage = " (expected e.g. +5%, -10%, >= 0.9999 or <= 500)";
  if (c.empty()) fail(r.line, "missing threshold after ':'" + usage);
  for (const char* op : {">=", "<=", ">", "<"}) {
    const std::string o = op;
    if (c.compare(0, o.size(), o) != 0) continue;
    r.kind = o[0] == '>' ? RuleKind::at_least : RuleKind::at_most;
    r.strict = o.size() == 1;
    r.value = parse_number(c.substr(o.size()), r.line, r.text);
    return;
  }
  if (c.back() != '%') fail(r.line, "bad threshold '" + c + "'" + usage);
  r.kind = RuleKind::relative;
  const std::string number = trim(c.substr(0, c.size() - 1));
  const double pct = parse_number(number, r.line, r.text);
  if (std::fabs(pct) > 1e6) fail(r.line, "threshold '" + c + "' is out of range");
  const bool up = higher_is_worse(r.metric);
  const char sign = number.empty() ? ' ' : number[0];
  if ((sign == '+' && !up) || (sign == '-' && up)) {
    fail(r.line, r.metric + " gets worse " + (up ? "upward: write +" : "downward: write -") +
                     trim(number.substr(1)) + "%, not " + c);
  }
  // Stored as a fraction signed in the direction that is worse.
  r.value = (up ? 1 : -1) * std::fabs(pct) / 100;
}

// "inconclusive=pass" (several settings separated by blanks or commas, the last of a key wins).
InconclusivePolicy parse_policy(const std::string& settings, int line) {
  const std::string usage = " (expected 'policy: inconclusive=undecidable|pass|fail')";
  std::optional<InconclusivePolicy> out;
  std::string text = settings;
  std::replace(text.begin(), text.end(), ',', ' ');
  std::replace(text.begin(), text.end(), '\t', ' ');
  for (const std::string& item : split(text, ' ')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    const std::string key = trim(item.substr(0, eq));
    const std::string value = eq == std::string::npos ? "" : trim(item.substr(eq + 1));
    if (key != "inconclusive") fail(line, "unknown policy '" + item + "'" + usage);
    if (value == "undecidable")
      out = InconclusivePolicy::undecidable;
    else if (value == "pass")
      out = InconclusivePolicy::pass;
    else if (value == "fail")
      out = InconclusivePolicy::fail;
    else
      fail(line, "bad policy value '" + item + "'" + usage);
  }
  if (!out) fail(line, "empty policy" + usage);
  return *out;
}

}  // namespace

const char* policy_name(InconclusivePolicy policy) {
  switch (policy) {
    case InconclusivePolicy::pass:
      return "pass";
    case InconclusivePolicy::fail:
      return "fail";
    case InconclusivePolicy::undecidable:
      break;
  }
  return "undecidable";
}

const std::vector<std::string>& compared_metrics() {
  static const std::vector<std::string> m = {"time", "speedup_vs_baseline", "memory", "throughput",
                                             "cosine"};
  return m;
}

bool higher_is_worse(const std::string& metric) {
  return metric == "time" || metric == "memory";
}

bool glob_match(const std::string& pattern, const std::string& text) {
  // Iterative matcher with single-star backtracking: linear space, no recursion.
  size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<ThresholdRule> parse_thresholds(const std::string& text,
                                            std::optional<InconclusivePolicy>* policy) {
  std::vector<ThresholdRule> rules;
  int line_no = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++line_no;
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    line = trim(line);
    if (line.empty()) continue;

    ThresholdRule r;
    r.line = line_no;
    r.text = line;
    const auto colon = line.find(':');
    if (colon == std::string::npos)
      fail(line_no, "expected 'model/backend/stage/metric: threshold', got '" + line + "'");
    const std::string pattern = trim(line.substr(0, colon));
    if (pattern == "policy") {
      const InconclusivePolicy p = parse_policy(line.substr(colon + 1), line_no);
      if (policy) *policy = p;
      continue;
    }
    const std::vector<std::string> fields = split(pattern, '/');
    if (fields.size() != 4 && fields.size() != 5) {
      std::string what = "pattern '";
      what += pattern;
      what += "' has " + std::to_string(fields.size()) +
              " fields; expected model/backend/stage/metric or model/size/backend/stage/metric";
      fail(line_no, what);
    }
    for (const auto& f : fields)
      if (f.empty()) fail(line_no, "empty field in '" + pattern + "'");
    r.model = fields[0];
    if (fields.size() == 5) r.size = fields[1];
    r.backend = fields[fields.size() - 3];
    r.stage = fields[fields.size() - 2];
    r.metric = metric_name(fields.back(), line_no);
    parse_condition(r, line.substr(colon + 1));
    rules.push_back(std::move(r));
    if (end == text.size()) break;
  }
  return rules;
}

bool rule_matches(const ThresholdRule& r, const std::string& model, const std::string& size,
                  const std::string& backend, const std::string& stage, const std::string& metric) {
  return r.metric == metric && glob_match(r.model, model) && glob_match(r.size, size) &&
         glob_match(r.backend, backend) && glob_match(r.stage, stage);
}

}  // namespace sb
