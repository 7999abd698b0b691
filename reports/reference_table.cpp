#include "reports/reference_table.h"

#include <algorithm>

#include "reports/number_format.h"
#include "reports/text_table.h"

namespace sb {
namespace {

using json = nlohmann::json;

// Stage times that may stand for our implementation: measured, not failed or skipped.
bool measured(const StageRecord& s) {
  return (s.status == "ok" || s.status == "invalid") && s.time.median_ms && *s.time.median_ms > 0;
}

std::string time_cell(double ms) {
  if (!std::isfinite(ms)) return "-";
  const double magnitude = ms > 0 ? std::floor(std::log10(ms)) : 0;
  return format_fixed(ms, static_cast<int>(std::clamp(3.0 - magnitude, 0.0, 6.0)));
}

std::string ratio_cell(double r) {
  return std::isfinite(r) ? format_fixed(r, 2) + "x" : "-";
}

// A stage's inference figure (summaries.inference.median_ms), NaN when it has none.
double inference_ms(const StageRecord& s) {
  if (!s.summaries.is_object()) return NAN;
  const auto inf = s.summaries.find("inference");
  if (inf == s.summaries.end() || !inf->is_object()) return NAN;
  const auto ms = inf->find("median_ms");
  return ms != inf->end() && ms->is_number() && ms->get<double>() > 0 ? ms->get<double>() : NAN;
}

// Our side of a table, from one figure of each stage (NaN where a stage has none): stage 0's
// where stage 0 was measured, and the fastest of a stage that passed (an invalid one may have
// failed its correctness check), which best_stage names.
struct OurFigures {
  double stage0 = NAN, best = NAN;
  std::string best_stage;
};

template <class Figure>
OurFigures our_figures(const RunRecord& r, Figure figure) {
  OurFigures o;
  if (!r.stages.empty() && measured(r.stages.front())) o.stage0 = figure(r.stages.front());
  for (const StageRecord& s : r.stages) {
    const double ms = figure(s);
    if (s.status != "ok" || !std::isfinite(ms) || !(std::isnan(o.best) || ms < o.best)) continue;
    o.best = ms;
    o.best_stage = s.id;
  }
  return o;
}

// The variants' rows, each against our stage 0's time and our best's (NaN: unknown).
void add_rows(ReferenceTable& t, const ReferenceRecord& ref, double stage0, double best) {
  for (const ReferenceVariant& v : ref.variants) {
    ReferenceRow row;
    row.label = t.name + ": " + v.name + (v.name == t.best ? " (best)" : "");
    row.status = v.error || !v.median_ms ? "failed" : v.correct == false ? "wrong" : "ok";
    row.rel_l2 = v.rel_l2.value_or(NAN);
    row.error = v.error.value_or("");
    row.median_ms = v.median_ms.value_or(NAN);
    row.samples = v.samples > 0 ? static_cast<double>(v.samples) : NAN;
    row.peak_bytes = v.peak_bytes ? static_cast<double>(*v.peak_bytes) : NAN;
    row.throughput = v.throughput.value_or(NAN);
    row.unit = v.throughput_unit.value_or("");
    if (row.median_ms > 0) {
      row.vs_stage0 = stage0 / row.median_ms;
      row.vs_best = best / row.median_ms;
    }
    t.rows.push_back(row);
  }
}

void describe(ReferenceTable& t, const ReferenceRecord& ref) {
  t.name = ref.name.empty() ? kReferenceName : ref.name;
  t.torch = ref.torch;
  t.device = ref.device;
  t.script = ref.script;
  t.timing = ref.timing;
  t.best = ref.best.value_or("");
}

std::string table_text(const ReferenceTable& t) {
  std::vector<std::vector<std::string>> rows{reference_table_header()};
  for (const ReferenceRow& r : t.rows) rows.push_back(reference_table_cells(r));
  std::string out = "#### " + t.name + (t.section.empty() ? "" : ": " + t.section) + "\n\n" +
                    markdown_table(rows) + "\n" + reference_table_legend(t) + "\n";
  std::string notes;
  for (const ReferenceRow& r : t.rows) {
    if (r.status == "wrong")
      notes += "- " + r.label + ": output off PyTorch fp32 eager" +
               (std::isfinite(r.rel_l2) ? ", relative L2 error " + format_significant(r.rel_l2)
                                        : std::string()) +
               "\n";
    if (!r.error.empty()) {
      std::string error = r.error;  // one line: a traceback must not break the list
      std::replace(error.begin(), error.end(), '\n', ' ');
      notes += "- " + r.label + ": " + error + "\n";
    }
  }
  return notes.empty() ? out : out + "\n" + notes;
}

}  // namespace

ReferenceTable reference_table(const json& run) {
  std::vector<std::string> ignored;  // a malformed block shows what is well-formed
  return reference_table(read_run(run, "run", ignored));
}

ReferenceTable reference_table(const RunRecord& r) {
  ReferenceTable t;
  if (!r.reference) return t;
  const ReferenceRecord& ref = *r.reference;
  describe(t, ref);
  const OurFigures o =
      our_figures(r, [](const StageRecord& s) { return measured(s) ? *s.time.median_ms : NAN; });
  t.best_stage = o.best_stage;
  add_rows(t, ref, o.stage0, o.best);
  return t;
}

ReferenceTable reference_inference_table(const json& run) {
  std::vector<std::string> ignored;  // a malformed block shows what is well-formed
  return reference_inference_table(read_run(run, "run", ignored));
}

ReferenceTable reference_inference_table(const RunRecord& r) {
  ReferenceTable t;
  if (!r.reference) return t;
  const auto it = r.reference->sections.find("inference");
  if (it == r.reference->sections.end() || !it->second.is_object()) return t;
  std::vector<std::string> ignored;  // a malformed section shows what is well-formed
  const ReferenceRecord ref = read_reference(it->second, "reference.inference", ignored);
  describe(t, ref);
  t.section = "inference";
  if (t.script.empty()) t.script = r.reference->script;
  // Our best: the fastest inference figure of a stage that passed (its training checked).
  const OurFigures o = our_figures(r, inference_ms);
  t.best_stage = o.best_stage;
  add_rows(t, ref, o.stage0, o.best);
  return t;
}

std::vector<std::string> reference_table_header() {
  return {"reference",   "status",   "time ms",    "vs our stage 0",
          "vs our best", "peak mem", "throughput", "samples"};
}

std::vector<std::string> reference_table_cells(const ReferenceRow& row) {
  std::string throughput = format_significant(row.throughput);
  if (std::isfinite(row.throughput) && !row.unit.empty()) throughput += " " + row.unit;
  return {row.label,
          row.status,
          time_cell(row.median_ms),
          ratio_cell(row.vs_stage0),
          ratio_cell(row.vs_best),
          format_bytes(row.peak_bytes),
          throughput,
          std::isfinite(row.samples) ? format_fixed(row.samples, 0) : "-"};
}

std::string reference_table_legend(const ReferenceTable& t) {
  const std::string ours = t.section == "inference"
                               ? "our stage 0's inference figure (our fastest ok stage's"
                               : "our stage 0's (our fastest ok stage's";
  std::string out =
      std::string(t.section == "inference" ? "PyTorch's inference forward" : "PyTorch's own") +
      " variants on the same shapes, timed by " +
      (t.script.empty() ? std::string("its reference script") : t.script) +
      (t.torch.empty() ? "" : " (torch " + t.torch + ")") +
      (t.device.empty() ? "" : " on " + t.device) +
      "; time: median per forward or training step; vs our stage 0 / vs our best: " + ours +
      (t.best_stage.empty() ? "" : ", " + t.best_stage) +
      ") median time over this variant's, above 1x PyTorch is faster; peak mem: PyTorch's peak "
      "allocated device memory.";
  if (!t.best.empty())
    out +=
        " (best): PyTorch's best, its fastest variant whose output passed the check against "
        "PyTorch fp32 eager; wrong: a variant that failed it.";
  if (!t.timing.empty()) out += " Timing: " + t.timing + ".";
  return out;
}

std::string reference_table_text(const json& run) {
  std::vector<std::string> ignored;  // a malformed block shows what is well-formed
  return reference_table_text(read_run(run, "run", ignored));
}

std::string reference_table_text(const RunRecord& run) {
  const ReferenceTable t = reference_table(run);
  if (t.rows.empty()) return "";
  const ReferenceTable inference = reference_inference_table(run);
  return table_text(t) + (inference.rows.empty() ? "" : "\n" + table_text(inference));
}

}  // namespace sb
