#include "reports/phase_verdict.h"

#include "reports/ladder_table.h"
#include "reports/mann_whitney.h"
#include "reports/number_format.h"
#include "schema/summaries.h"

namespace sb {
namespace {

// The stage's per-step times of `phase`, as logs; empty when it recorded none.
std::vector<double> log_phase_samples(const StageRecord& s, const std::string& phase) {
  std::vector<double> out;
  for (const double v : summary::phase_samples_ms(s.summaries, phase))
    if (v > 0) out.push_back(std::log(v));
  return out;
}

}  // namespace

PhaseVerdict phase_verdict(const std::vector<StageRecord>& stages, size_t index) {
  PhaseVerdict v;
  if (index >= stages.size() || !stages[index].claim.phase) return v;
  const StageRecord& s = stages[index];
  v.phase = *s.claim.phase;
  v.claimed_lo = s.claim.phase_speedup_lo.value_or(NAN);
  v.claimed_hi = s.claim.phase_speedup_hi.value_or(NAN);
  const std::vector<double> mine = log_phase_samples(s, v.phase);
  std::vector<double> before;
  for (size_t i = index; i-- > 0;) {
    if (stages[i].speedup.baseline != s.speedup.baseline) continue;
    before = log_phase_samples(stages[i], v.phase);
    if (!before.empty()) {
      v.over = stages[i].id;
      if (stages[i].status != "ok") v.unmet = "stage " + v.over + " is " + stages[i].status;
      break;
    }
  }
  if (s.status != "ok") v.unmet = "the stage is " + s.status;
  if (mine.empty()) v.unmet = "the stage recorded no " + v.phase + " times";
  if (before.empty()) v.unmet = "no earlier stage recorded " + v.phase + " times";
  if (!v.unmet.empty()) return v;
  // Shift of this stage's log times over the earlier stage's: speedup = exp(-shift).
  const MannWhitney mw = mann_whitney(before, mine);
  v.speedup = std::exp(-mw.shift);
  v.lo = std::exp(-mw.shift_hi);
  v.hi = std::exp(-mw.shift_lo);
  if (std::isnan(v.lo) || std::isnan(v.hi)) {
    v.unmet = "too few steps for a 95% interval";
    return v;
  }
  if (std::isnan(v.claimed_lo) || std::isnan(v.claimed_hi)) return v;
  v.verdict = interval_verdict({v.claimed_lo, v.claimed_hi}, v.lo, v.hi);
  return v;
}

std::string phase_verdict_text(const PhaseVerdict& v) {
  if (v.phase.empty()) return "";
  std::string claimed = std::isnan(v.claimed_lo) ? "no figure"
                                                 : format_fixed(v.claimed_lo, 2) + "-" +
                                                       format_fixed(v.claimed_hi, 2) + "x";
  if (!v.unmet.empty())
    return v.phase + " phase, claimed " + claimed + ": no verdict (" + v.unmet + ")";
  return v.phase + " phase " + format_fixed(v.speedup, 2) + "x [" + format_fixed(v.lo, 2) + ", " +
         format_fixed(v.hi, 2) + "] over " + v.over + ", claimed " + claimed +
         (v.verdict.empty() ? "" : ": " + v.verdict);
}

}  // namespace sb
