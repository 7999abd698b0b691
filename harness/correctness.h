#pragma once
// A stage's output checked against the baseline's (stage 0, same inputs and weights):
// cosine similarity, max abs error, relative L2 error, judged by the cosine threshold of the
// stage's precision (docs/method.md).
#include <optional>
#include <string>
#include <vector>

#include "contract/workload.h"

namespace sb {

struct CorrectnessResult {
  double cosine = 0;     // NaN when undefined (non-finite values, size mismatch, zero vector)
  double max_abs = 0;    // max |candidate - reference|
  double rel_l2 = 0;     // ||candidate - reference|| / ||reference||
  double tolerance = 0;  // the minimum cosine that passes
  double rel_l2_tolerance = 0;  // the largest relative L2 error that passes
  std::string basis;            // the precision the tolerance is for
  bool pass = false;
  std::string reason;  // why it failed; empty when it passed
  // Training stages only: the loss curve's largest relative difference, and its bound.
  std::optional<double> loss_max_rel, loss_tolerance;
};

// docs/method.md thresholds: fp32 cosine >= 0.99999, tf32 >= 0.9999, bf16/fp16 >= 0.999,
// int8 >= 0.99. Throws std::invalid_argument naming an unknown basis.
Tolerance tolerance_for(const std::string& basis);

// The tolerance a stage is held to: its ladder entry's, or that of the precision its GEMMs
// actually ran in (WorkCounts::precision) when that one is looser. A stage that runs TF32 where
// the device has it is judged as tf32, not fp32; a bf16 stage that ran fp16 as fp16. The loss
// bound of a training stage is the entry's.
Tolerance tolerance_that_ran(const Tolerance& declared, const std::string& ran);

// Sums run in double so that long outputs do not lose the small differences being measured.
// Fails (with a reason) on a size mismatch, empty outputs, NaN/Inf in either output, a cosine
// under the tolerance, or a relative L2 error over Tolerance::max_rel_l2(). Two all-zero outputs
// are identical and pass.
CorrectnessResult compare(const std::vector<float>& candidate, const std::vector<float>& reference,
                          const Tolerance& tolerance);

// A training stage against the baseline's trace: the loss curves step by step (the largest
// |a - b| / max(|b|, 1e-12) must stay within max_loss_rel), then the final parameters as
// compare() judges outputs. Fails on curves of different lengths or non-finite losses.
CorrectnessResult compare_training(const TrainTrace& candidate, const TrainTrace& reference,
                                   const Tolerance& tolerance);

}  // namespace sb
