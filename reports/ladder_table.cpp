#include "reports/ladder_table.h"

#include <algorithm>
#include <cmath>
#include <regex>

#include "reports/number_format.h"
#include "reports/stage_row.h"
#include "reports/text_table.h"
#include "reports/train_phases.h"

namespace sb {
namespace {

using json = nlohmann::json;

std::string speedup_cell(const StageRow& s) {
  if (!std::isfinite(s.speedup)) return "-";
  std::string out = format_fixed(s.speedup, 2) + "x";
  if (std::isfinite(s.speedup_lo) && std::isfinite(s.speedup_hi))
    out += " [" + format_fixed(s.speedup_lo, 2) + ", " + format_fixed(s.speedup_hi, 2) + "]";
  return out;
}

std::string cosine_cell(const StageRow& s) {
  // Training stages hold the loss curve to the baseline's; the cosine is then the final
  // parameters'.
  std::string out = loss_check_text(s);
  if (out.empty()) out = format_fixed(s.cosine, 8);
  if (s.correctness_pass == 0) out += " FAIL";
  return out;
}

}  // namespace

ClaimRange claim_range(const ClaimRecord& claim) {
  if (!claim.speedup || !std::isfinite(*claim.speedup)) return {};
  const double s = *claim.speedup;
  ClaimRange point{s, s};
  // "A-B" or "A to B" (also an en dash) and its unit: x, %, or a rate such as "samples/s".
  static const std::regex range(
      "(\\d+(?:\\.\\d+)?)\\s*(?:-|\xE2\x80\x93|to)\\s*(\\d+(?:\\.\\d+)?)\\s*"
      "(x|\xC3\x97|%|[A-Za-z]+/s\\b)");
  auto same = [](double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, b); };
  ClaimRange rate;
  for (auto it = std::sregex_iterator(claim.text.begin(), claim.text.end(), range);
       it != std::sregex_iterator(); ++it) {
    const double a = std::stod((*it)[1]), b = std::stod((*it)[2]);
    const std::string unit = (*it)[3];
    if (!(b > a) || !(a > 0)) continue;
    if (unit == "%") {
      if (same(1 + a / 100, s)) return {s, 1 + b / 100};  // "10-15% faster": 1.10-1.15x
    } else if (unit.find('/') != std::string::npos) {
      // A rate range against the baseline's rate: the speedup is its low end over that rate,
      // the upper end scales alike.
      if (std::isnan(rate.lo)) rate = {s, s * b / a};
    } else if (same(a, s)) {
      return {s, b};  // "1.5-3x"
    }
  }
  return std::isnan(rate.lo) ? point : rate;
}

ClaimRange widened_claim(const ClaimRange& c) {
  double below = kClaimSlack * c.lo;
  if (c.lo > 1) below = std::min(below, (c.lo - 1) / 2);
  return {c.lo - below, c.hi * (1 + kClaimSlack)};
}

std::string claim_verdict(const StageRecord& stage, int index, const std::string& unmet) {
  const auto& ci = stage.speedup.ci95;
  if (index == 0 || stage.status != "ok" || !unmet.empty()) return "";
  const ClaimRange c = claim_range(stage.claim);
  if (std::isnan(c.lo) || !ci || !(*ci)[0] || !(*ci)[1]) return "";
  return interval_verdict(c, *(*ci)[0], *(*ci)[1]);
}

std::string interval_verdict(const ClaimRange& claimed, double ci_lo, double ci_hi) {
  const auto [lo, hi] = widened_claim(claimed);
  if (ci_hi < lo) return "not reproduced (below)";
  if (ci_lo > hi) return "not reproduced (above)";
  if (ci_lo >= lo && ci_hi <= hi) return "confirmed";
  return "inconclusive";
}

std::string claim_precondition(const std::vector<StageRecord>& stages, size_t index) {
  if (index == 0 || index >= stages.size()) return "";
  // The stage's phase: the stages over the same baseline (stage 0, or the one it names).
  const Text& phase = stages[index].speedup.baseline;
  size_t base = 0;
  if (phase) {
    base = index;
    for (size_t i = 0; i < stages.size(); ++i)
      if (stages[i].id == *phase) base = i;
    if (base == index) return "it is its phase's reference";
  }
  const std::string base_name = base == 0 ? "stage 0" : "stage " + stages[base].id;
  if (stages[base].status != "ok") return base_name + " is " + stages[base].status;
  for (size_t i = base + 1; i < index; ++i)
    if (stages[i].speedup.baseline == phase && stages[i].status != "ok" &&
        stages[i].status != "invalid")
      return "stage " + stages[i].id + " was " + stages[i].status;
  return "";
}

std::string claim_verdict(const json& stage, int index) {
  std::vector<std::string> ignored;
  return claim_verdict(read_stage(stage, "stage", ignored), index);
}

static std::string claimed_cell(const StageRow& s) {
  if (!std::isfinite(s.claim_speedup)) return "-";
  if (std::isfinite(s.claim_speedup_hi) && s.claim_speedup_hi > s.claim_speedup)
    return format_fixed(s.claim_speedup, 2) + "-" + format_fixed(s.claim_speedup_hi, 2) + "x";
  return format_fixed(s.claim_speedup, 2) + "x";
}

std::string format_time_with_spread(const StageRow& s) {
  if (!std::isfinite(s.median_ms)) return "-";
  const double magnitude =
      std::fabs(s.median_ms) > 0 ? std::floor(std::log10(std::fabs(s.median_ms))) : 0;
  const int decimals = static_cast<int>(std::clamp(3.0 - magnitude, 0.0, 6.0));
  std::string out = format_fixed(s.median_ms, decimals);
  if (std::isfinite(s.p10_ms) && std::isfinite(s.p90_ms))
    out += " ± " + format_fixed((s.p90_ms - s.p10_ms) / 2, decimals);
  return out;
}

std::vector<std::string> ladder_table_header() {
  return {"#",        "stage",      "status",       "time ms",       "vs prev",
          "host RSS", "model peak", "items/s",      "GFLOP/s",       "of peak",
          "cosine",   "claimed",    "PyTorch here", "ours [95% CI]", "verdict"};
}

// PyTorch's own cumulative ratio for the stage (StageRow::pytorch_speedup); "n/a" where PyTorch
// has no counterpart (the notes say why), "-" where the run has no peer block.
static std::string pytorch_cell(const StageRow& s) {
  if (std::isfinite(s.pytorch_speedup))
    return format_fixed(s.pytorch_speedup, 2) + "x " + s.pytorch_variant;
  return s.pytorch_note.empty() ? "-" : "n/a";
}

std::vector<std::string> ladder_table_cells(const StageRow& s) {
  return {std::to_string(s.index),
          s.id,
          s.status,
          format_time_with_spread(s),
          format_percent_change(s.vs_previous),
          format_bytes(s.host_rss_bytes),
          format_bytes(s.model_peak_bytes),
          format_significant(s.items_per_s),
          format_significant(s.gflops),
          std::isfinite(s.roofline_frac) ? format_fixed(s.roofline_frac * 100, 0) + "%" : "-",
          cosine_cell(s),
          claimed_cell(s),
          pytorch_cell(s),
          speedup_cell(s),
          s.claim_verdict.empty() ? s.phase_claim_verdict : s.claim_verdict};
}

std::string ladder_table_text(const json& run) {
  std::vector<std::string> ignored;  // a malformed run shows what is well-formed
  return ladder_table_text(read_run(run, "run", ignored));
}

std::string ladder_table_text(const RunRecord& run) {
  const RunSummary r = summarize_run(run);
  std::vector<std::vector<std::string>> rows{ladder_table_header()};
  for (const StageRow& s : r.stages) rows.push_back(ladder_table_cells(s));

  std::string out = run_title(r) + "\n\n" + markdown_table(rows) + "\n";
  std::string item = "items";
  for (const StageRow& s : r.stages)
    if (!s.item_name.empty()) item = s.item_name;
  out +=
      "time: median ± half the p10-p90 range; claimed: the document's cumulative speedup; "
      "PyTorch here: PyTorch's own ratio for the stage on this machine (its fastest correct "
      "counterpart over its counterpart of stage 0, from the peer block; n/a: no counterpart); "
      "ours: cumulative vs stage 0, median of paired ratios, with its 95% interval; vs prev: "
      "incremental speedup; model peak: the model's own " +
      std::string(r.backend == "opencl" ? "device buffers" : "host tensors") + "; items: " + item +
      "; of peak: fraction of the roofline; verdict: the speedup's 95% interval against the "
      "claimed range widened by 10%, confirmed inside it, not reproduced wholly outside, "
      "inconclusive across a bound." +
      (std::any_of(r.stages.begin(), r.stages.end(),
                   [](const StageRow& s) { return std::isfinite(s.loss_max_rel); })
           ? " loss Δ: the loss curve's largest relative difference from the baseline's; cos: the "
             "final parameters' cosine."
           : "") +
      "\n";
  std::string notes;
  for (const StageRow& s : r.stages) {
    if (s.status != "ok")
      notes += "- " + s.id + ": " + s.status + (s.reason.empty() ? "" : ": " + s.reason) + "\n";
  }
  for (const StageRow& s : r.stages) {
    if (s.claim_text.empty()) continue;
    notes += "- " + s.id + " claim" + (s.claim_source.empty() ? "" : " (" + s.claim_source + ")") +
             ": " + s.claim_text +
             (s.claim_unmet.empty() || s.status != "ok" || std::isnan(s.claim_speedup)
                  ? ""
                  : " (no verdict: " + s.claim_unmet + ")") +
             "\n";
  }
  for (const StageRow& s : r.stages)
    if (!s.phase_claim.empty())
      notes += "- " + s.id + " claim about one phase: " + s.phase_claim + "\n";
  for (const StageRow& s : r.stages)
    if (!std::isfinite(s.pytorch_speedup) && !s.pytorch_note.empty())
      notes += "- " + s.id + ", PyTorch: " + s.pytorch_note + "\n";
  if (!notes.empty()) out += "\n" + notes;
  return out;
}

}  // namespace sb
