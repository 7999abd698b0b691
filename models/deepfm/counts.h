#pragma once
// The work of one DeepFM training step, for throughput and the roofline (docs/models.md).
#include <array>
#include <cstdint>

#include "models/deepfm/config.h"

namespace sb::deepfm {

struct StepCounts {
  double forward_flops = 0;
  double flops = 0;  // forward + backward (twice the forward's GEMMs) of one step
  double bytes = 0;  // a floor of the step's memory traffic (below)
};

// FLOPs: 2 x the multiply-adds of every GEMM (projections, attention over 4 tokens, FM pairs,
// deep layers, heads); the backward pass does two GEMMs per forward one. Bytes: the optimizer's
// unavoidable traffic, 40 bytes per parameter (forward reads the weight; backward reads it and
// writes its gradient; AdamW reads weight, gradient and both moments and writes three), plus
// every activation written once and read once by its backward.
StepCounts step_counts(const Config& c, const std::array<int64_t, 4>& cardinality);

}  // namespace sb::deepfm
