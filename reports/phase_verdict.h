#pragma once
// Verdicts on claims about one phase of a training step rather than the whole step (DeepFM's
// "reduces CPU-GPU transfer overhead by ~20-30%", "~5-10% faster loss computation"): the claim
// names the phase (claim.phase) and the speedup it implies over the stage before. The phase's
// per-step times (summaries.phase_samples_ms, measured after the stage's timed samples, phase by
// phase with a synchronization between phases) of the stage and of the nearest earlier stage
// that recorded the phase are two independent samples, not paired rounds: the speedup is
// exp(-s) with s the Hodges-Lehmann shift of the log times (the median of all pairwise
// differences), and its 95% interval is the distribution-free Mann-Whitney interval of that
// shift, mapped the same way (reports/mann_whitney.h). The verdict is read off as for a whole
// stage's claim (reports/ladder_table.h).
#include <cmath>
#include <string>
#include <vector>

#include "schema/records.h"

namespace sb {

struct PhaseVerdict {
  std::string phase;  // the claim's phase; "" when the stage's claim is not about a phase
  std::string over;   // the stage it is compared with
  double speedup = NAN, lo = NAN, hi = NAN;
  double claimed_lo = NAN, claimed_hi = NAN;
  std::string verdict;  // confirmed, not reproduced (below|above), inconclusive; "" when none
  std::string unmet;    // why there is no verdict
};

PhaseVerdict phase_verdict(const std::vector<StageRecord>& stages, size_t index);

// "h2d 1.31x [1.20, 1.45] over vectorized-fm, claimed 1.25-1.43x: confirmed"; "" for a stage
// whose claim is not about a phase.
std::string phase_verdict_text(const PhaseVerdict& v);

}  // namespace sb
