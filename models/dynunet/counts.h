#pragma once
// DynUNet's work per step and per forward, from the configuration alone (docs/method.md).
#include "models/dynunet/config.h"

namespace sb::dynunet {

struct PassCounts {
  double flops = 0;  // 2 x multiply-adds of the convolutions
  double bytes = 0;  // floor of activation traffic (below)
};

// One forward over a batch. Bytes: every convolution reads its input and weights once and
// writes its output once; every norm reads its input twice (statistics, apply) and writes once.
PassCounts forward_counts(const Config& c);
// One training step: the forward, then backward-data and backward-weights of every convolution
// (each the forward's products again; the input convolutions have no backward-data) and the
// norms' backward (three reads, one write).
PassCounts step_counts(const Config& c);
// What gradient checkpointing executes beyond step_counts: backward runs each block's forward
// again (every residual and up block; the output convolution's result is kept), so its step
// executes step_counts + this. A second figure beside the model's (as HFU beside MFU); the
// stage's GFLOP/s stays the model's work over its time.
PassCounts recompute_counts(const Config& c);

}  // namespace sb::dynunet
