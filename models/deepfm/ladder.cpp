#include "models/deepfm/ladder.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "models/ops/knobs.h"

namespace sb::deepfm {

const std::vector<StageSpec>& ladder() {
  static const std::vector<StageSpec> stages = [] {
    const std::string s1 = "seed 001", s2 = "seed 002";
    const Tolerance fp32{0.99999, "fp32", 1e-4}, bf16{0.999, "bf16", 3e-2};
    std::vector<StageSpec> s(kStageCount);
    s[kBaseline] = {"baseline",
                    "Baseline (FM pair list, per-tensor blocking transfers, stacked losses, fp32)",
                    {s1, "-", 1.0},
                    fp32};
    s[kVectorizedFm] = {"vectorized-fm",
                        "Vectorized FM (all pairs from one batched GEMM)",
                        {s1, "~10-15% faster forward pass", 1.10},
                        fp32};
    s[kBatchedTransfer] = {"batched-transfer",
                           "Batched non-blocking transfer into a preallocated batch",
                           {s1, "reduces CPU-GPU transfer overhead by ~20-30%", std::nullopt},
                           fp32};
    s[kPreallocatedLoss] = {"preallocated-loss",
                            "Preallocated loss tensor (no per-step list and stack)",
                            {s1, "~5-10% faster loss computation", std::nullopt},
                            fp32};
    s[kAmp] = {"amp",
               "Mixed precision (bf16 CPU / f16 GPU GEMMs, fp32 master weights, loss scaling)",
               {s1, "~2x faster training, ~40-50% less memory (overall 2-3x)", 2.0},
               bf16};
    s[kDataloader] = {"dataloader",
                      "Persistent prefetch workers (batches assembled while the device computes)",
                      {s2, "pinned memory and workers: 10-30% faster data loading", std::nullopt},
                      bf16};
    s[kAutotune] = {
        "autotune",
        "Autotuned GEMM kernels per shape, chosen by measuring on first use (cudnn.benchmark)",
        {s2, "cudnn.benchmark 5-10%, TF32 up to 8x matmul", std::nullopt},
        bf16};
    s[kPreprocess] = {"preprocess",
                      "Preprocessing with regex cleaning (the data phase's baseline)",
                      {s2, "-", 1.0},
                      fp32,
                      "preprocess"};
    s[kLiteralStrings] = {"literal-strings",
                          "Preprocessing with literal string replacement instead of a regex",
                          {s2, "10-100x faster preprocessing", 10.0},
                          fp32,
                          "preprocess"};
    // PyTorch's counterparts (scripts/reference/deepfm_torch.py's RECIPES).
    s[kBaseline].claim.pytorch = {"fp32-eager"};
    s[kVectorizedFm].claim.pytorch_none =
        "the reference computes the FM term in the batched form from the start";
    s[kBatchedTransfer].claim.pytorch = {"pinned-nonblocking"};
    // The seed's phase claims, judged on the phase they name: 20-30% less transfer time is a
    // 1/0.8 to 1/0.7 speedup of the h2d phase; 5-10% faster loss computation, of the loss.
    s[kBatchedTransfer].claim.phase = "h2d";
    s[kBatchedTransfer].claim.phase_lo = 1 / 0.8;
    s[kBatchedTransfer].claim.phase_hi = 1 / 0.7;
    s[kPreallocatedLoss].claim.phase = "loss";
    s[kPreallocatedLoss].claim.phase_lo = 1.05;
    s[kPreallocatedLoss].claim.phase_hi = 1.10;
    s[kPreallocatedLoss].claim.pytorch_none =
        "the reference computes its loss in one call, with no per-step list to remove";
    s[kAmp].claim.pytorch = {"amp-fp16", "amp-bf16"};
    s[kDataloader].claim.pytorch_none = "the reference times steps from a pinned host batch";
    s[kAutotune].claim.pytorch_none =
        "cudnn.benchmark tunes convolutions, of which DeepFM has none";
    s[kPreprocess].claim.pytorch_none = "data phase: the reference times training steps only";
    s[kLiteralStrings].claim.pytorch_none = "data phase: the reference times training steps only";
    return s;
  }();
  return stages;
}

namespace {

// STAGEBENCH_DFM_FUSED_DROPOUT: on (default) or off (Switches::fused_dropout).
bool fused_dropout_requested() {
  return read_on_off_knob("STAGEBENCH_DFM_FUSED_DROPOUT");
}

}  // namespace

bool is_data_phase(size_t stage) {
  return stage == kPreprocess || stage == kLiteralStrings;
}

Switches switches_for(size_t stage, Precision reduced) {
  Switches sw;
  if (is_data_phase(stage)) return sw;
  sw.gram_fm = stage >= kVectorizedFm;
  sw.batched_transfer = stage >= kBatchedTransfer;
  sw.preallocated_loss = stage >= kPreallocatedLoss;
  if (stage >= kAmp) {
    sw.precision = reduced;
    sw.loss_scaling = true;
  }
  sw.prefetch = stage >= kDataloader;
  sw.autotune = stage >= kAutotune;
  sw.fused_dropout = stage >= kAmp && fused_dropout_requested();
  sw.one_sync = stage >= kAmp && read_on_off_knob("STAGEBENCH_DFM_ONE_SYNC");
  sw.attn_copy = stage >= kAmp && read_on_off_knob("STAGEBENCH_DFM_ATTN_COPY");
  return sw;
}

}  // namespace sb::deepfm
