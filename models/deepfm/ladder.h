#pragma once
// pharmagen DeepFM's training ladder (docs/ladders.md, seeds 001 and 002). Stages 0-6 are
// training steps, each carrying the optimizations below it; the last two are the data phase
// (preprocessing the table), timed apart with its own baseline.
#include <string>
#include <vector>

#include "contract/workload.h"
#include "models/ops/op_types.h"

namespace sb::deepfm {

enum StageIndex : size_t {
  kBaseline = 0,
  kVectorizedFm,
  kBatchedTransfer,
  kPreallocatedLoss,
  kAmp,
  kDataloader,
  kAutotune,
  kPreprocess,      // the data phase's baseline: regex cleaning
  kLiteralStrings,  // literal replacement instead of a regex
  kStageCount
};

struct Switches {
  bool gram_fm = false;            // all six pair products from one batched GEMM (Gram matrix)
  bool batched_transfer = false;   // preallocated device batch, non-blocking writes
  bool preallocated_loss = false;  // task losses into one fixed [3] tensor, no per-step stack
  Precision precision = Precision::f32;  // of every GEMM (autocast), fp32 master weights
  bool loss_scaling = false;             // dynamic loss scaling (amp)
  bool prefetch = false;                 // persistent workers assemble batches ahead
  bool autotune = false;                 // each GEMM shape's kernel chosen by measuring
  // The FFN's and deep layers' activations and their dropouts one op each way (Backend::
  // activation_dropout), from the amp stage on: the fp32 stages stand for PyTorch's eager step.
  // STAGEBENCH_DFM_FUSED_DROPOUT=off keeps the separate passes, for A/B runs (dfm35).
  bool fused_dropout = false;
  // Loss scaling's overflow check: the gradients' norm written beside the losses and read in
  // the same download, one wait for the device a step instead of two (dfm36); from amp on.
  // STAGEBENCH_DFM_ONE_SYNC=off downloads them apart, for A/B runs.
  bool one_sync = false;
  // The attention output's f16 copy written by its product (gemm_batched_small), so that the
  // out-projection packs nothing (dfm36); from amp on. STAGEBENCH_DFM_ATTN_COPY=off: packed.
  bool attn_copy = false;
};

const std::vector<StageSpec>& ladder();
bool is_data_phase(size_t stage);
// `reduced`: the backend's half precision for amp (bf16 on the CPU).
Switches switches_for(size_t stage, Precision reduced);

}  // namespace sb::deepfm
