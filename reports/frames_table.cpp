#include "reports/frames_table.h"

#include "reports/number_format.h"
#include "reports/text_table.h"

namespace sb {
namespace {

// now / before - 1; NaN when either is unknown.
double change(double now, double before) {
  if (!std::isfinite(now) || !std::isfinite(before) || !(before > 0)) return NAN;
  return now / before - 1;
}

// "+52%", "-8%"; "" when unknown.
std::string signed_percent(double fraction) {
  if (!std::isfinite(fraction)) return "";
  const double pct = fraction * 100;
  std::string out = pct >= 0 ? "+" : "";  // appended, not prefixed: GCC 12's -Wrestrict misfires
  out += format_fixed(pct, 0);
  return out + "%";
}

std::string with_change(double value, double fraction) {
  if (!std::isfinite(value)) return "-";
  const std::string c = signed_percent(fraction);
  return format_significant(value) + (c.empty() ? "" : " (" + c + ")");
}

// The memory a stage held at its peak: the device's where there is one, else the model's
// host tensors.
double held_bytes(const StageRow& s) {
  return std::isfinite(s.device_peak_bytes) ? s.device_peak_bytes : s.model_peak_bytes;
}

}  // namespace

std::vector<const StageRow*> frames_table_stages(const RunSummary& run) {
  std::vector<const StageRow*> out;
  for (const StageRow& s : run.stages)
    if (std::isfinite(s.train.infer_fps)) out.push_back(&s);
  return out;
}

std::vector<std::string> frames_table_header(const RunSummary& run) {
  const std::string item = run.stages.empty() || run.stages.front().item_name.empty()
                               ? "items"
                               : run.stages.front().item_name;
  return {"#",       "stage",    "training " + item + "/s", "claimed", "inference " + item + "/s",
          "claimed", "memory MB"};
}

std::vector<FramesRow> frames_table_values(const RunSummary& run) {
  // Changes are taken over the last row above with a claim of its own: a stage off the main
  // line (checkpointing trades speed for memory and has no speedup claim) is compared with the
  // row before it, and the stage after it is compared with that row too. Claimed changes are
  // the ratio of the cumulative claims of the same two rows, so a stage skipped here (no row)
  // folds its claim into the next measured one.
  std::vector<FramesRow> rows;
  const StageRow *train_base = nullptr, *infer_base = nullptr;
  for (const StageRow* s : frames_table_stages(run)) {
    const double train_claim = s->claim_speedup, infer_claim = s->train.infer_claim;
    FramesRow r;
    r.stage = s;
    if (train_base) {
      r.train_change = change(s->items_per_s, train_base->items_per_s);
      r.train_claimed_change = change(train_claim, train_base->claim_speedup);
    }
    if (infer_base) {
      r.infer_change = change(s->train.infer_fps, infer_base->train.infer_fps);
      r.infer_claimed_change = change(infer_claim, infer_base->train.infer_claim);
    }
    r.held_bytes = held_bytes(*s);
    rows.push_back(r);
    if (std::isfinite(train_claim)) train_base = s;
    if (std::isfinite(infer_claim)) infer_base = s;
  }
  return rows;
}

std::vector<std::vector<std::string>> frames_table_rows(const RunSummary& run) {
  std::vector<std::vector<std::string>> rows;
  for (const FramesRow& r : frames_table_values(run)) {
    const StageRow& s = *r.stage;
    rows.push_back({std::to_string(s.index), s.id, with_change(s.items_per_s, r.train_change),
                    signed_percent(r.train_claimed_change),
                    with_change(s.train.infer_fps, r.infer_change),
                    signed_percent(r.infer_claimed_change),
                    std::isfinite(r.held_bytes) ? format_significant(r.held_bytes / 1e6) : "-"});
  }
  return rows;
}

std::string frames_table_legend() {
  return "training: the measured step throughput; inference: the stage's forward pass alone, "
         "timed after its training (median); (+X%): over the last row above with a claim; claimed: "
         "the "
         "document's change over its previous figure; memory: the peak the stage held (device, "
         "else the model's host tensors).";
}

std::string frames_table_text(const RunSummary& run) {
  if (frames_table_stages(run).empty()) return "";
  std::vector<std::vector<std::string>> rows{frames_table_header(run)};
  for (auto& r : frames_table_rows(run)) rows.push_back(std::move(r));
  return "#### Training and inference\n\n" + markdown_table(rows) + "\n" + frames_table_legend() +
         "\n";
}

}  // namespace sb
