#pragma once
// FLOPs and minimum bytes of one Enformer forward, from the layer formulas (docs/models.md):
// FLOPs are 2 x the multiply-adds of convolutions, linears and attention; bytes are one read of
// each GEMM's input and weights and one write of its output (the floor a fully fused forward
// approaches), with weights at the stage's precision.
#include "contract/workload.h"
#include "models/enformer/config.h"
#include "models/ops/backend.h"

namespace sb::enformer {

WorkCounts forward_counts(const Config& c, Precision weights);

}  // namespace sb::enformer
