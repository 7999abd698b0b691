// CSV: one row per stage of every run of every document; RFC 4180 quoting with "\n" line ends;
// numbers in their shortest exact form; empty cells for unknown values. When a training run has
// stages with step phases, a second section follows after an empty line: its own header
// (report_csv_train_columns) and one row per such stage. Without one the output is the first
// section alone.
#include <functional>
#include <utility>

#include "reports/number_format.h"
#include "reports/report.h"
#include "reports/stage_row.h"
#include "reports/train_phases.h"

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
      {"claim_speedup_hi", [](F, R, S s) { return num(s.claim_speedup_hi); }},
  };
  return kColumns;
}

// The training section: the run's identity, the stage, each phase in ms and as a fraction of
// their sum, the memory split in bytes, the loss check and the step counters.
const std::vector<Column>& train_columns() {
  using F = const std::string&;
  using R = const RunSummary&;
  using S = const StageRow&;
  static const std::vector<Column> kColumns = [] {
    std::vector<Column> c = {
        {"file", [](F f, R, S) { return f; }},
        {"model", [](F, R r, S) { return r.model; }},
        {"size", [](F, R r, S) { return r.size; }},
        {"backend", [](F, R r, S) { return r.backend; }},
        {"device", [](F, R r, S) { return r.device; }},
        {"stage_index", [](F, R, S s) { return std::to_string(s.index); }},
        {"stage", [](F, R, S s) { return s.id; }},
    };
    // Columns named by the summaries' keys and units (schema/summaries.h): data_ms, ...
    auto named = [](const char* key, const summary::Figure& f) {
      return std::string(key) + "_" + summary::unit_suffix(f.unit);
    };
    for (size_t i = 0; i < kTrainPhaseCount; ++i)
      c.push_back({named(train_phase_keys()[i], summary::kPhasesMs),
                   [i](F, R, S s) { return num(s.train.phase_ms[i]); }});
    c.push_back({"step_ms", [](F, R, S s) { return num(phase_sum_ms(s)); }});
    for (size_t i = 0; i < kTrainPhaseCount; ++i)
      c.push_back({std::string(train_phase_keys()[i]) + "_share",
                   [i](F, R, S s) { return num(phase_share(s, i)); }});
    for (size_t i = 0; i < kMemorySplitCount; ++i)
      c.push_back({named(memory_split_keys()[i], summary::kMemorySplitBytes),
                   [i](F, R, S s) { return num(s.train.memory_split_bytes[i]); }});
    c.push_back({"loss_max_rel", [](F, R, S s) { return num(s.loss_max_rel); }});
    c.push_back({"loss_tolerance", [](F, R, S s) { return num(s.loss_tolerance); }});
    c.push_back({summary::kLossScale.key, [](F, R, S s) { return num(s.train.loss_scale); }});
    c.push_back({summary::kSteps.key, [](F, R, S s) { return num(s.train.steps); }});
    c.push_back({summary::kSkippedSteps.key, [](F, R, S s) { return num(s.train.skipped_steps); }});
    c.push_back({summary::kLastLoss.key, [](F, R, S s) { return num(s.train.last_loss); }});
    return c;
  }();
  return kColumns;
}

std::vector<std::string> names_of(const std::vector<Column>& columns) {
  std::vector<std::string> n;
  for (const Column& c : columns) n.push_back(c.name);
  return n;
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
  static const std::vector<std::string> names = names_of(columns());
  return names;
}

const std::vector<std::string>& report_csv_train_columns() {
  static const std::vector<std::string> names = names_of(train_columns());
  return names;
}

std::string report_csv(const std::vector<ReportInput>& inputs) {
  auto header = [](const std::vector<std::string>& names) {
    std::string line;
    for (const std::string& name : names) line += (line.empty() ? "" : ",") + name;
    return line + "\n";
  };
  auto row = [](const std::vector<Column>& cols, const std::string& file, const RunSummary& r,
                const StageRow& s) {
    std::string line;
    for (size_t i = 0; i < cols.size(); ++i) {
      if (i) line += ',';
      line += quoted(cols[i].cell(file, r, s));
    }
    return line + "\n";
  };
  std::string out = header(report_csv_columns());
  std::string train;
  for (const ReportInput& in : inputs) {
    for (const RunRecord& run : in.record.runs) {
      const RunSummary r = summarize_run(run);
      for (const StageRow& s : r.stages) out += row(columns(), in.name, r, s);
      for (const StageRow* s : train_phase_stages(r)) train += row(train_columns(), in.name, r, *s);
    }
  }
  if (!train.empty()) {
    out += '\n';  // an empty line, then the training section with its own header
    out += header(report_csv_train_columns());
    out += train;
  }
  return out;
}

}  // namespace sb
