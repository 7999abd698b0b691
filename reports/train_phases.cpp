#include "reports/train_phases.h"

#include <cstdio>

#include "reports/number_format.h"
#include "reports/text_table.h"

namespace sb {
namespace {

// Three significant digits with a short exponent: 3e-6, 2.5e-5, 0.012.
std::string compact(double v) {
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", v);
  std::string out = buf;
  for (const char* pad : {"e-0", "e+0"}) {
    const size_t at = out.find(pad);
    if (at != std::string::npos) out.erase(at + 2, 1);
  }
  const size_t plus = out.find("e+");
  if (plus != std::string::npos) out.erase(plus + 1, 1);
  return out;
}

std::string megabytes(double bytes) {
  return format_significant(bytes / 1e6);
}

}  // namespace

std::vector<const StageRow*> train_phase_stages(const RunSummary& run) {
  std::vector<const StageRow*> out;
  if (run.mode != "train") return out;
  for (const StageRow& s : run.stages)
    if (s.train.has_phases) out.push_back(&s);
  return out;
}

double phase_sum_ms(const StageRow& s) {
  double sum = 0;
  bool any = false;
  for (const double v : s.train.phase_ms) {
    if (!std::isfinite(v)) continue;
    sum += v;
    any = true;
  }
  return any ? sum : NAN;
}

double phase_share(const StageRow& s, size_t phase) {
  const double sum = phase_sum_ms(s);
  const double v = phase < kTrainPhaseCount ? s.train.phase_ms[phase] : NAN;
  if (!std::isfinite(v) || !(sum > 0)) return NAN;
  return v / sum;
}

const std::vector<std::string>& train_phase_names() {
  static const std::vector<std::string> names{"data", "h2d", "forward", "backward", "optimizer"};
  return names;
}

const std::vector<std::string>& memory_split_names() {
  static const std::vector<std::string> names{"parameters", "gradients", "optimizer state",
                                              "activations"};
  return names;
}

std::vector<std::string> train_phases_header() {
  std::vector<std::string> h{"#", "stage"};
  for (const std::string& p : train_phase_names()) h.push_back(p + " ms");
  h.push_back("step ms");
  for (const std::string& m : memory_split_names()) h.push_back(m + " MB");
  return h;
}

std::vector<std::string> train_phases_cells(const StageRow& s) {
  // One number of decimals for the row, from the step's length, so that the phases line up
  // with their sum: 0.12 + 0.03 + 4.10 + 6.20 + 1.50 = 11.95.
  const double step = phase_sum_ms(s);
  const int decimals = !(step >= 1) ? 3 : step < 100 ? 2 : step < 1000 ? 1 : 0;
  std::vector<std::string> cells{std::to_string(s.index), s.id};
  for (size_t i = 0; i < kTrainPhaseCount; ++i) {
    std::string cell = format_fixed(s.train.phase_ms[i], decimals);
    const double share = phase_share(s, i);
    if (std::isfinite(share))
      cell += share > 0 && share < 0.005 ? " (<1%)" : " (" + format_fixed(share * 100, 0) + "%)";
    cells.push_back(cell);
  }
  cells.push_back(format_fixed(step, decimals));
  for (const double b : s.train.memory_split_bytes) cells.push_back(megabytes(b));
  return cells;
}

std::string train_phases_legend() {
  return "phases: medians of a few instrumented steps, ms (share of the step); step: the "
         "phases' sum; memory: MB (10^6 bytes).";
}

std::vector<std::string> train_phases_notes(const RunSummary& run) {
  std::vector<std::string> notes;
  for (const StageRow* s : train_phase_stages(run)) {
    const TrainFigures& t = s->train;
    if (!(t.skipped_steps > 0)) continue;
    std::string note = s->id + ": " + format_fixed(t.skipped_steps, 0) + " of " +
                       (std::isfinite(t.steps) ? format_fixed(t.steps, 0) : "?") + " steps skipped";
    if (std::isfinite(t.loss_scale))
      note += " (loss scale " + format_round_trip(t.loss_scale) + ")";
    notes.push_back(note);
  }
  return notes;
}

std::string train_phases_text(const RunSummary& run) {
  const std::vector<const StageRow*> stages = train_phase_stages(run);
  if (stages.empty()) return "";
  std::vector<std::vector<std::string>> rows{train_phases_header()};
  for (const StageRow* s : stages) rows.push_back(train_phases_cells(*s));
  std::string out =
      "#### Training step phases\n\n" + markdown_table(rows) + "\n" + train_phases_legend() + "\n";
  const std::vector<std::string> notes = train_phases_notes(run);
  if (!notes.empty()) {
    out += "\n";
    for (const std::string& n : notes) out += "- " + n + "\n";
  }
  return out;
}

std::string loss_check_text(const StageRow& s) {
  if (!std::isfinite(s.loss_max_rel)) return "";
  std::string out = "loss Δ " + compact(s.loss_max_rel);
  if (std::isfinite(s.cosine)) out += ", cos " + format_fixed(s.cosine, 6);
  return out;
}

}  // namespace sb
