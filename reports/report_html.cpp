// One self-contained HTML page: inline CSS, the ladder table of every run, and three inline SVG
// charts per run (time with p10-p90 whiskers, cumulative speedup with its 95% interval and the
// documents' claims, memory). A training run adds its step phases and memory split after the
// ladder: a table and two stacked bar charts. No script, nothing fetched: it opens the same
// offline.
#include <cctype>

#include "reports/frames_table.h"
#include "reports/ladder_table.h"
#include "reports/number_format.h"
#include "reports/provenance.h"
#include "reports/reference_table.h"
#include "reports/report.h"
#include "reports/stage_row.h"
#include "reports/svg_chart.h"
#include "reports/train_phases.h"

namespace sb {
namespace {

using json = nlohmann::json;

constexpr const char* kStyle = R"css(
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 1400px; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 2em; } h3 { font-size: 1.1em; }
p.context, p.legend { color: #555; font-size: 0.9em; }
table.ladder { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
table.ladder th, table.ladder td { border: 1px solid #ccc; padding: 3px 7px; white-space: nowrap; }
table.ladder th { background: #f0f0f0; }
table.ladder td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.status-skipped td, tr.status-failed td, tr.status-invalid td { color: #777; }
td.status-failed, td.status-invalid { color: #b00 !important; font-weight: bold; }
td.verdict-confirmed { color: #070; } td.verdict-below { color: #b00; } td.verdict-above { color: #05a; } td.verdict-inconclusive { color: #777; }
ul.notes { font-size: 0.85em; color: #444; }
div.charts { display: flex; flex-wrap: wrap; gap: 1em; }
svg.chart { background: #fff; border: 1px solid #ddd; }
svg.chart text { font-size: 11px; fill: #333; }
svg.chart text.chart-title { font-size: 13px; font-weight: bold; }
svg.chart line.grid { stroke: #e4e4e4; }
svg.chart line.reference { stroke: #555; stroke-dasharray: 4 3; }
svg.chart path.error-bar { stroke: #222; fill: none; stroke-width: 1.2; }
svg.chart path.marker { fill: #d62728; stroke: #fff; }
svg.chart text.na { fill: #999; font-style: italic; }
)css";

// Class names come from fixed words, never from the document's text.
std::string status_class(const std::string& status) {
  for (const char* known : {"ok", "skipped", "failed", "invalid"})
    if (status == known) return known;
  return "other";
}

std::string verdict_class(const std::string& verdict) {
  if (verdict == "confirmed") return "verdict-confirmed";
  if (verdict == "not reproduced (below)") return "verdict-below";
  if (verdict == "not reproduced (above)") return "verdict-above";
  if (verdict == "inconclusive") return "verdict-inconclusive";
  return "verdict-none";
}

std::string context_line(const json& document) {
  if (!document.is_object() || !document.contains("context")) return {};
  const ContextRecord ctx = read_context(document["context"]);
  std::string line;
  auto add = [&](const std::string& label, const std::string& value) {
    if (value.empty()) return;
    line += (line.empty() ? "" : " · ") + label + value;
  };
  add("host ", ctx.host);
  add("", ctx.date);
  add("CPU ", ctx.cpu.model);
  if (ctx.present) add("", provenance_text(ctx));
  return line;
}

std::string ladder_table_html(const RunSummary& run) {
  std::string out = "<table class=\"ladder\">\n<thead><tr>";
  for (const std::string& h : ladder_table_header()) out += "<th>" + html_escape(h) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const StageRow& s : run.stages) {
    const std::vector<std::string> cells = ladder_table_cells(s);
    const std::string status = status_class(s.status);
    out += "<tr class=\"status-" + status + "\">";
    for (size_t i = 0; i < cells.size(); ++i) {
      std::string cls = i >= 3 ? "num" : "";
      if (i == 1 && !s.title.empty()) {
        out += "<td title=\"" + html_escape(s.title) + "\">" + html_escape(cells[i]) + "</td>";
        continue;
      }
      if (i == 2) cls = "status-" + status;
      if (i + 1 == cells.size()) cls = verdict_class(cells[i]);
      out += "<td class=\"" + cls + "\">" + html_escape(cells[i]) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

std::string notes_html(const RunSummary& run) {
  std::string items;
  for (const StageRow& s : run.stages) {
    if (s.status != "ok")
      items += "<li><b>" + html_escape(s.id) + "</b>: " + html_escape(s.status) +
               (s.reason.empty() ? "" : ": " + html_escape(s.reason)) + "</li>\n";
  }
  for (const StageRow& s : run.stages) {
    if (s.claim_text.empty()) continue;
    items += "<li><b>" + html_escape(s.id) + "</b> claim" +
             (s.claim_source.empty() ? "" : " (" + html_escape(s.claim_source) + ")") + ": " +
             html_escape(s.claim_text) + "</li>\n";
  }
  return items.empty() ? "" : "<ul class=\"notes\">\n" + items + "</ul>\n";
}

// Segment colours, in train_phase_keys() and memory_split_keys() order.
constexpr const char* kPhaseColours[kTrainPhaseCount] = {"#bbbbbb", "#ddaa33", "#4477aa", "#cc6677",
                                                         "#44aa77"};
constexpr const char* kSplitColours[kMemorySplitCount] = {"#4477aa", "#cc6677", "#ddaa33",
                                                          "#44aa77"};

std::string train_phases_html(const RunSummary& run) {
  const std::vector<const StageRow*> stages = train_phase_stages(run);
  if (stages.empty()) return "";
  std::string out = "<h4>Training step phases</h4>\n<table class=\"ladder phases\">\n<thead><tr>";
  for (const std::string& h : train_phases_header()) out += "<th>" + html_escape(h) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  BarChart phases{"Training step phases", "median ms per step", {}, {}, {}, "", NAN, false, true};
  BarChart split{"Memory split", "bytes", {}, {}, {}, "", NAN, true, true};
  for (size_t i = 0; i < kTrainPhaseCount; ++i)
    phases.series.push_back({train_phase_names()[i], kPhaseColours[i], {}, {}, {}});
  for (size_t i = 0; i < kMemorySplitCount; ++i)
    split.series.push_back({memory_split_names()[i], kSplitColours[i], {}, {}, {}});
  for (const StageRow* s : stages) {
    const std::vector<std::string> cells = train_phases_cells(*s);
    out += "<tr>";
    for (size_t i = 0; i < cells.size(); ++i)
      out += "<td class=\"" + std::string(i >= 2 ? "num" : "") + "\">" + html_escape(cells[i]) +
             "</td>";
    out += "</tr>\n";
    phases.labels.push_back(s->id);
    split.labels.push_back(s->id);
    for (size_t i = 0; i < kTrainPhaseCount; ++i)
      phases.series[i].value.push_back(s->train.phase_ms[i]);
    for (size_t i = 0; i < kMemorySplitCount; ++i)
      split.series[i].value.push_back(s->train.memory_split_bytes[i]);
  }
  out += "</tbody>\n</table>\n<p class=\"legend\">" + html_escape(train_phases_legend()) + "</p>\n";
  const std::vector<std::string> notes = train_phases_notes(run);
  if (!notes.empty()) {
    out += "<ul class=\"notes\">\n";
    for (const std::string& n : notes) out += "<li>" + html_escape(n) + "</li>\n";
    out += "</ul>\n";
  }
  return out + "<div class=\"charts\">\n" + svg_bar_chart(phases) + svg_bar_chart(split) +
         "</div>\n";
}

// PyTorch's rows under the ladder (reference_table.h), with failed variants' reasons as notes.
std::string reference_table_html(const RunRecord& r) {
  const ReferenceTable t = reference_table(r);
  if (t.rows.empty()) return "";
  std::string out = "<h4>" + html_escape(t.name) +
                    "</h4>\n<table class=\"ladder reference\">\n"
                    "<thead><tr>";
  for (const std::string& h : reference_table_header()) out += "<th>" + html_escape(h) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  std::string notes;
  for (const ReferenceRow& row : t.rows) {
    const std::vector<std::string> cells = reference_table_cells(row);
    const std::string status = status_class(row.status);
    out += "<tr class=\"status-" + status + "\">";
    for (size_t i = 0; i < cells.size(); ++i) {
      const std::string cls = i == 1 ? "status-" + status : i >= 2 ? "num" : "";
      out += "<td class=\"" + cls + "\">" + html_escape(cells[i]) + "</td>";
    }
    out += "</tr>\n";
    if (!row.error.empty())
      notes += "<li><b>" + html_escape(row.label) + "</b>: " + html_escape(row.error) + "</li>\n";
  }
  out += "</tbody>\n</table>\n<p class=\"legend\">" + html_escape(reference_table_legend(t)) +
         "</p>\n";
  return notes.empty() ? out : out + "<ul class=\"notes\">\n" + notes + "</ul>\n";
}

// Seed 004's table (frames_table.h), with its two throughputs side by side in a chart.
std::string frames_table_html(const RunSummary& run) {
  const std::vector<const StageRow*> stages = frames_table_stages(run);
  if (stages.empty()) return "";
  std::string out = "<h4>Training and inference</h4>\n<table class=\"ladder frames\">\n<thead><tr>";
  for (const std::string& h : frames_table_header(run)) out += "<th>" + html_escape(h) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& cells : frames_table_rows(run)) {
    out += "<tr>";
    for (size_t i = 0; i < cells.size(); ++i)
      out += "<td class=\"" + std::string(i >= 2 ? "num" : "") + "\">" + html_escape(cells[i]) +
             "</td>";
    out += "</tr>\n";
  }
  BarChart fps{
      "Training and inference throughput", "items per second", {}, {}, {}, "", NAN, false, false};
  fps.series.push_back({"training", kPhaseColours[2], {}, {}, {}});
  fps.series.push_back({"inference", kPhaseColours[4], {}, {}, {}});
  for (const StageRow* s : stages) {
    fps.labels.push_back(s->id);
    fps.series[0].value.push_back(s->items_per_s);
    fps.series[1].value.push_back(s->train.infer_fps);
  }
  return out + "</tbody>\n</table>\n<p class=\"legend\">" + html_escape(frames_table_legend()) +
         "</p>\n<div class=\"charts\">\n" + svg_bar_chart(fps) + "</div>\n";
}

std::string loss_legend(const RunSummary& run) {
  for (const StageRow& s : run.stages)
    if (std::isfinite(s.loss_max_rel))
      return " loss Δ: the loss curve's largest relative difference from the baseline's; cos: "
             "the final parameters' cosine.";
  return "";
}

std::string charts_html(const RunSummary& run) {
  BarChart time{
      "Time per stage", "median time (ms), whiskers p10-p90", {}, {}, {}, "", NAN, false, false};
  BarChart speed{"Cumulative speedup",
                 "speedup vs stage 0 (x), whiskers 95% CI",
                 {},
                 {},
                 {},
                 "claimed",
                 1.0,
                 false,
                 false};
  BarChart memory{"Memory per stage", "peak bytes", {}, {}, {}, "", NAN, true, false};
  ChartSeries t{"median", "#4477aa", {}, {}, {}};
  ChartSeries sp{"measured", "#44aa77", {}, {}, {}};
  ChartSeries rss{"host RSS", "#bbbbbb", {}, {}, {}};
  ChartSeries model{
      run.backend == "opencl" ? "model (device)" : "model (host tensors)", "#cc6677", {}, {}, {}};
  for (const StageRow& s : run.stages) {
    for (BarChart* c : {&time, &speed, &memory}) c->labels.push_back(s.id);
    t.value.push_back(s.median_ms);
    t.lo.push_back(s.p10_ms);
    t.hi.push_back(s.p90_ms);
    sp.value.push_back(s.speedup);
    sp.lo.push_back(s.speedup_lo);
    sp.hi.push_back(s.speedup_hi);
    speed.markers.push_back(s.claim_speedup);
    rss.value.push_back(s.host_rss_bytes);
    model.value.push_back(s.model_peak_bytes);
  }
  time.series = {t};
  speed.series = {sp};
  memory.series = {rss, model};
  return "<div class=\"charts\">\n" + svg_bar_chart(time) + svg_bar_chart(speed) +
         svg_bar_chart(memory) + "</div>\n";
}

}  // namespace

std::string report_html(const std::vector<ReportInput>& inputs) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"generator\" content=\"stagebench report\">\n<title>stagebench report</title>\n"
      "<style>" +
      std::string(kStyle) + "</style>\n</head>\n<body>\n<h1>stagebench report</h1>\n";
  for (const ReportInput& in : inputs) {
    out += "<section class=\"document\">\n<h2>" + html_escape(in.name) + "</h2>\n";
    const std::string ctx = context_line(in.document);
    if (!ctx.empty()) out += "<p class=\"context\">" + html_escape(ctx) + "</p>\n";
    if (in.record.runs.empty()) out += "<p>(no runs)</p>\n";
    for (const RunRecord& r : in.record.runs) {
      const RunSummary run = summarize_run(r);
      out += "<section class=\"run\">\n<h3>" + html_escape(run_title(run)) + "</h3>\n" +
             ladder_table_html(run) +
             "<p class=\"legend\">time: median ± half the p10-p90 range; speedup: cumulative vs "
             "stage 0, median of paired ratios, 95% interval; vs prev: incremental speedup; "
             "verdict: the documented claim against the interval." +
             loss_legend(run) + "</p>\n" + notes_html(run) + reference_table_html(r) +
             train_phases_html(run) + frames_table_html(run) + charts_html(run) + "</section>\n";
    }
    out += "</section>\n";
  }
  return out + "</body>\n</html>\n";
}

}  // namespace sb
