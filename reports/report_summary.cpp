#include "reports/report_summary.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "reports/number_format.h"

namespace sb {
namespace {

std::string ratio(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", x);
  return buf;
}

std::string claim_text(const StageRow& s) {
  if (std::isnan(s.claim_speedup)) return "no claimed speedup";
  std::string claimed = ratio(s.claim_speedup);
  if (s.claim_speedup_hi > s.claim_speedup) claimed += "-" + ratio(s.claim_speedup_hi);
  std::string verdict = s.claim_verdict;
  if (verdict.empty()) {
    verdict = "no verdict";
    if (!s.claim_unmet.empty()) verdict.append(" (").append(s.claim_unmet).append(")");
  }
  return "claim " + claimed + ": " + verdict;
}

}  // namespace

std::string run_summary_line(const RunSummary& run) {
  std::string line = run_title(run) + ": ";
  if (run.stages.empty()) return line + "no stages";
  // Counted in a fixed order so that the line reads the same for every run.
  std::map<std::string, int> counts;
  for (const StageRow& s : run.stages) ++counts[s.status];
  line += std::to_string(run.stages.size()) + " stages (";
  bool first = true;
  for (const char* status : {"ok", "invalid", "skipped", "failed"}) {
    if (!counts.count(status)) continue;
    line += (first ? "" : ", ") + std::to_string(counts[status]) + " " + status;
    first = false;
    counts.erase(status);
  }
  for (const auto& [status, n] : counts) {
    line += (first ? "" : ", ") + std::to_string(n) + " " + (status.empty() ? "?" : status);
    first = false;
  }
  line += "); ";
  // The step's speedups are ratios to stage 0: when it does not stand, none does.
  const StageRow& zero = run.stages.front();
  if (zero.status != "ok")
    return line + "no speedup stands: stage 0 (" + zero.id + ") is " + zero.status +
           (zero.reason.empty() ? "" : " (" + zero.reason + ")");
  const StageRow* best = nullptr;
  // Against stage 0 only: a phase's stages (DeepFM's data loading) are ratios to their own
  // baseline and do not rank with the whole step's.
  for (const StageRow& s : run.stages)
    if (s.index > 0 && s.baseline.empty() && s.status == "ok" && std::isfinite(s.speedup) &&
        (!best || s.speedup > best->speedup))
      best = &s;
  if (!best) return line + "no later stage is ok";
  line += "fastest ok: " + best->id + " " + ratio(best->speedup);
  if (std::isfinite(best->speedup_lo) && std::isfinite(best->speedup_hi))
    line +=
        " [" + format_fixed(best->speedup_lo, 2) + ", " + format_fixed(best->speedup_hi, 2) + "]";
  line += " vs " + run.stages.front().id + ", " + claim_text(*best);
  if (std::isfinite(best->pytorch_speedup))
    line += "; PyTorch here " + ratio(best->pytorch_speedup);
  return line;
}

std::string report_summary(const std::vector<ReportInput>& inputs) {
  std::string out;
  for (const ReportInput& in : inputs) {
    out += in.name + "\n";
    if (in.record.runs.empty()) out += "  (no runs)\n";
    for (const RunRecord& run : in.record.runs) {
      const RunSummary summary = summarize_run(run);
      if (run.status && !run.status->empty()) {
        out +=
            "  " + run_title(summary) + ": " + *run.status + ": " + run.reason.value_or("") + "\n";
        continue;
      }
      out += "  " + run_summary_line(summary) + "\n";
    }
  }
  return out;
}

}  // namespace sb
