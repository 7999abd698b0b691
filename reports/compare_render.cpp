#include "reports/compare_render.h"

#include <cstdio>

#include "reports/number_format.h"
#include "reports/text_table.h"
#include "schema/json_text.h"

namespace sb {
namespace {

std::string value_text(const std::string& metric, double v) {
  if (!std::isfinite(v)) return "-";
  if (metric == "time") {
    char buf[64];
    std::snprintf(buf, sizeof buf, std::fabs(v) < 1e7 ? "%.4g ms" : "%.3e ms", v);
    return buf;
  }
  if (metric == "speedup_vs_baseline") return format_fixed(v, 3) + "x";
  if (metric == "memory") return format_bytes(v);
  if (metric == "throughput") return format_significant(v) + "/s";
  if (metric == "cosine") return format_fixed(v, 8);
  return format_significant(v);
}

std::string change_text(double change) {
  if (!std::isfinite(change)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, std::fabs(change) < 1e4 ? "%+.1f%%" : "%+.3g%%", change * 100);
  return buf;
}

std::string p_text(double p) {
  if (!std::isfinite(p)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, p < 1e-4 ? "%.1e" : "%.4f", p);
  return buf;
}

const char* marker(const MetricComparison& m) {
  if (m.regression) return " (regression)";
  if (m.suspected) return " (suspected regression)";
  if (m.undecidable) return " (undecidable)";
  return "";
}

// The note, and why the row is inconclusive unless the note says so already.
std::string note_text(const MetricComparison& m) {
  const std::string& why = m.inconclusive_reason;
  if (why.empty() || m.note.find(why.substr(0, why.find(", "))) != std::string::npos) return m.note;
  return m.note + (m.note.empty() ? "" : "; ") + why;
}

}  // namespace

std::string compare_markdown(const CompareResult& r, const CompareOptions& o,
                             const std::string& base_name, const std::string& candidate_name) {
  std::string out = "compare " + base_name + " (base) -> " + candidate_name +
                    " (candidate): alpha " + format_significant(o.alpha) + ", minimum effect " +
                    format_significant(o.min_effect * 100) + "%, min samples " +
                    std::to_string(o.min_samples) + "\n";
  std::string current;
  std::vector<std::vector<std::string>> table;
  auto flush = [&] {
    if (table.size() > 1) out += "\n### " + current + "\n\n" + markdown_table(table);
    table.clear();
  };
  for (const MetricComparison& m : r.rows) {
    const std::string run = m.model + " / " + m.size + " / " + m.backend;
    if (run != current || table.empty()) {
      flush();
      current = run;
      table.push_back(
          {"stage", "metric", "base", "candidate", "change", "p", "verdict", "rule", "note"});
    }
    table.push_back({m.stage, m.metric, value_text(m.metric, m.base),
                     value_text(m.metric, m.candidate), change_text(m.change), p_text(m.p_value),
                     std::string(verdict_name(m.verdict)) + marker(m), m.rule, note_text(m)});
  }
  flush();
  if (!r.problems.empty()) {
    out += "\nproblems:\n";
    for (const std::string& p : r.problems) out += "- " + p + "\n";
  }
  size_t regressions = 0;
  for (const MetricComparison& m : r.rows) regressions += m.regression;
  const std::string of = " of " + std::to_string(r.rows.size()) + " comparisons";
  std::string also;  // "; 1 suspected, 5 undecidable"
  if (r.suspected && r.regression) also += std::to_string(r.suspected) + " suspected";
  if (r.undecidable)
    also += (also.empty() ? "" : ", ") + std::to_string(r.undecidable) + " undecidable";
  if (!r.regression && r.policy == InconclusivePolicy::pass && r.suspected)
    also = std::to_string(r.suspected) + " suspected" + (also.empty() ? "" : ", ") + also;
  if (!also.empty()) also = "; " + also;
  out += "\nresult: ";
  switch (r.outcome()) {
    case CompareOutcome::nothing_comparable:
      out += "nothing comparable\n";
      break;
    case CompareOutcome::regression:
      if (!r.vanished.empty())
        out += "REGRESSION (" + std::to_string(r.vanished.size()) +
               " measured in base and gone in candidate, " + std::to_string(regressions) + of +
               " regressed" + also + ")\n";
      else if (r.regression)
        out += "REGRESSION (" + std::to_string(regressions) + of + also + ")\n";
      else if (r.suspected)
        out += "SUSPECTED REGRESSION (" + std::to_string(r.suspected) + of +
               ", on too few samples to test" + also + ")\n";
      else
        out += "REGRESSION (" + std::to_string(r.undecidable) + of +
               " undecidable, policy inconclusive=fail)\n";
      break;
    case CompareOutcome::undecidable:
      out += "UNDECIDABLE (" + std::to_string(r.undecidable) + of +
             " could not be judged; nothing regressed)\n";
      break;
    case CompareOutcome::pass:
      out += "no regression (" + std::to_string(r.rows.size()) + " comparisons" + also +
             (also.empty() ? "" : ", passed by policy inconclusive=pass") + ")\n";
      break;
  }
  if (!r.hint.empty()) out += r.hint + "\n";
  return out;
}

nlohmann::json compare_json(const CompareResult& r, const CompareOptions& o,
                            const std::string& base_name, const std::string& candidate_name) {
  nlohmann::json rows = nlohmann::json::array();
  for (const MetricComparison& m : r.rows) {
    rows.push_back({{"model", m.model},
                    {"size", m.size},
                    {"backend", m.backend},
                    {"stage", m.stage},
                    {"metric", m.metric},
                    {"base", json_number_or_null(m.base)},
                    {"candidate", json_number_or_null(m.candidate)},
                    {"change", json_number_or_null(m.change)},
                    {"p_value", json_number_or_null(m.p_value)},
                    {"verdict", verdict_name(m.verdict)},
                    {"rule", m.rule},
                    {"regression", m.regression},
                    {"suspected", m.suspected},
                    {"undecidable", m.undecidable},
                    {"inconclusive_reason", m.inconclusive_reason},
                    {"note", m.note}});
  }
  const char* outcome = "pass";
  switch (r.outcome()) {
    case CompareOutcome::regression:
      outcome = "regression";
      break;
    case CompareOutcome::nothing_comparable:
      outcome = "nothing comparable";
      break;
    case CompareOutcome::undecidable:
      outcome = "undecidable";
      break;
    case CompareOutcome::pass:
      break;
  }
  return {{"schema", "stagebench-compare/1"},
          {"base", base_name},
          {"candidate", candidate_name},
          {"alpha", o.alpha},
          {"min_effect", o.min_effect},
          {"min_samples", o.min_samples},
          {"regression", r.regression},
          {"suspected", r.suspected},
          {"undecidable", r.undecidable},
          {"policy", policy_name(r.policy)},
          {"outcome", outcome},
          {"hint", r.hint},
          {"comparable", r.comparable()},
          {"problems", r.problems},
          {"vanished", r.vanished},
          {"rows", std::move(rows)}};
}

}  // namespace sb
