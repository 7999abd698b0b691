#pragma once
// CytoDL DynUNet's ladder (seed 004; docs/ladders.md): each stage is a set of switches over the
// one network (network.h). Training is what a stage's samples measure; its inference (a forward
// pass on the stage's switches) is measured after, so one run records seed 004's table.
#include <cstddef>
#include <optional>
#include <vector>

#include "contract/workload.h"
#include "models/ops/op_types.h"

namespace sb::dynunet {

enum Stage : size_t {
  kBaseline,
  kMixedPrecision,
  kChannelsLast,
  kCompile,
  kFusedOptimizer,
  kCheckpointing,
  kGraphReplay,
  kDataloader,
  kStageCount
};

// What a stage changes, cumulative up the ladder but for checkpointing (a trade of time for
// memory, applied at its own stage only, as the seed's "all optimizations" row leaves it out).
struct Switches {
  Precision precision = Precision::f32;  // of the convolutions' products
  Layout3d layout = Layout3d::ncdhw;
  bool fused_norm = false;      // norm + residual + LeakyReLU in one pass, fewer tensors kept
  bool flat_optimizer = false;  // one AdamW pass over one flat parameter buffer
  bool checkpoint = false;      // keep block outputs only; recompute the rest in backward
  bool prefetch = false;        // volumes made by loader threads while the device computes
};

const std::vector<StageSpec>& ladder();
// Seed 004's inference claim per stage (cumulative speedup over the baseline's inference), or
// nullopt where the seed gives none.
std::optional<double> inference_claim(size_t stage);
Switches switches_for(size_t stage, Precision reduced);

}  // namespace sb::dynunet
