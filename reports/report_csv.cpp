// CSV: one row per stage of every run of every document; RFC 4180 quoting with "\n" line ends;
// numbers in their shortest exact form; empty cells for unknown values.
#include <functional>
#include <utility>

#include "reports/number_format.h"
#include "reports/report.h"
#include "reports/runs_of.h"
#include "reports/stage_row.h"

namespace sb {
namespace {

struct Column {
  std::string name;
  std::function<std::string(const std::string& file, const RunSummary&, const StageRow&)> cell;
};

std::string num(double v) {
  return format_round_trip(v);
}

const std::vector<Column>& columns() {
  using F = const std::string&;
  using R = const RunSummary&;
  using S = const StageRow&;
  static const std::vector<Column> kColumns = {
      {"file", [](F f, R, S) { return f; }},
      {"model", [](F, R r, S) { return r.model; }},
      {"size", [](F, R r, S) { return r.size; }},
      {"backend", [](F, R r, S) { return r.backend; }},
      {"device", [](F, R r, S) { return r.device; }},
      {"mode", [](F, R r, S) { return r.mode; }},
      {"stage_index", [](F, R, S s) { return std::to_string(s.index); }},
      {"stage", [](F, R, S s) { return s.id; }},
      {"title", [](F, R, S s) { return s.title; }},
      {"status", [](F, R, S s) { return s.status; }},
      {"reason", [](F, R, S s) { return s.reason; }},
      {"median_ms", [](F, R, S s) { return num(s.median_ms); }},
      {"p10_ms", [](F, R, S s) { return num(s.p10_ms); }},
      {"p90_ms", [](F, R, S s) { return num(s.p90_ms); }},
      {"stddev_ms", [](F, R, S s) { return num(s.stddev_ms); }},
      {"samples", [](F, R, S s) { return num(s.samples); }},
      {"speedup", [](F, R, S s) { return num(s.speedup); }},
      {"speedup_ci95_lo", [](F, R, S s) { return num(s.speedup_lo); }},
      {"speedup_ci95_hi", [](F, R, S s) { return num(s.speedup_hi); }},
      {"speedup_vs_previous", [](F, R, S s) { return num(s.vs_previous); }},
      {"host_rss_bytes", [](F, R, S s) { return num(s.host_rss_bytes); }},
      {"model_peak_bytes", [](F, R, S s) { return num(s.model_peak_bytes); }},
      {"model_peak_source", [](F, R, S s) { return s.model_peak_source; }},
      {"items_per_s", [](F, R, S s) { return num(s.items_per_s); }},
      {"item_name", [](F, R, S s) { return s.item_name; }},
      {"gflops", [](F, R, S s) { return num(s.gflops); }},
      {"roofline_frac", [](F, R, S s) { return num(s.roofline_frac); }},
      {"cosine", [](F, R, S s) { return num(s.cosine); }},
      {"correctness_tolerance", [](F, R, S s) { return num(s.tolerance); }},
      {"correctness_pass",
       [](F, R, S s) {
         return s.correctness_pass < 0 ? std::string() : s.correctness_pass ? "true" : "false";
       }},
      {"claim_speedup", [](F, R, S s) { return num(s.claim_speedup); }},
      {"claim_verdict", [](F, R, S s) { return s.claim_verdict; }},
      {"claim_source", [](F, R, S s) { return s.claim_source; }},
  };
  return kColumns;
}

std::string quoted(const std::string& cell) {
  if (cell.find_first_of(",\"\r\n") == std::string::npos) return cell;
  std::string out = "\"";
  for (const char c : cell) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

const std::vector<std::string>& report_csv_columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const Column& c : columns()) n.push_back(c.name);
    return n;
  }();
  return names;
}

std::string report_csv(const std::vector<ReportInput>& inputs) {
  std::string out;
  for (const std::string& name : report_csv_columns()) {
    if (!out.empty()) out += ',';
    out += name;
  }
  out += "\n";
  for (const ReportInput& in : inputs) {
    for (const auto& run : runs_of(in.document)) {
      const RunSummary r = summarize_run(run);
      for (const StageRow& s : r.stages) {
        for (size_t i = 0; i < columns().size(); ++i) {
          if (i) out += ',';
          out += quoted(columns()[i].cell(in.name, r, s));
        }
        out += "\n";
      }
    }
  }
  return out;
}

}  // namespace sb
