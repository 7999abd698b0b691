#include "models/dynunet/ladder.h"

namespace sb::dynunet {

// Seed 004's table (RTX 4090, batch 8, 64^3): training 2.1 FPS -> 3.2 (bf16) -> 3.9
// (channels-last) -> 4.8 (compile) -> 5.1 (fused optimizer) -> 5.3 (all); inference 8.2 ->
// 12.8 -> 15.1 -> 18.9 -> 18.9 -> 19.7. The claims below are those FPS over the baseline's.
const std::vector<StageSpec>& ladder() {
  static const std::vector<StageSpec> stages = [] {
    const std::string s4 = "seed 004";
    const Tolerance fp32{0.99999, "fp32", 1e-4}, bf16{0.999, "bf16", 3e-2};
    std::vector<StageSpec> s(kStageCount);
    s[kBaseline] = {"baseline",
                    "Baseline (fp32, NCDHW, separate norm/activation/residual passes, AdamW per "
                    "tensor)",
                    {s4, "2.1 train / 8.2 inference FPS, 18.4 GB", 1.0},
                    fp32};
    s[kMixedPrecision] = {"bf16-mixed",
                          "Mixed precision (reduced-precision convolution products, fp32 master "
                          "weights)",
                          {s4, "+52% train / +56% inference, 14.2 GB", 3.2 / 2.1},
                          bf16};
    s[kChannelsLast] = {"channels-last",
                        "Channels-last volumes (NDHWC)",
                        {s4, "+22% train / +18% inference", 3.9 / 2.1},
                        bf16};
    s[kCompile] = {"compile",
                   "Compiled blocks (norm + residual + LeakyReLU in one pass, fewer tensors kept)",
                   {s4, "+23% train / +25% inference", 4.8 / 2.1},
                   bf16};
    s[kFusedOptimizer] = {"fused-optimizer",
                          "Fused AdamW (one pass over one flat parameter buffer)",
                          {s4, "+6% train", 5.1 / 2.1},
                          bf16};
    s[kCheckpointing] = {"gradient-checkpointing",
                         "Gradient checkpointing (block outputs kept, the rest recomputed in "
                         "backward)",
                         {s4, "40-60% less memory for ~20% speed", std::nullopt},
                         bf16};
    s[kGraphReplay] = {"graph-replay",
                       "Graph replay (a recorded launch sequence, no per-launch host work)",
                       {s4, "CUDA graphs (no figure)", std::nullopt},
                       bf16};
    s[kDataloader] = {"dataloader",
                      "Persistent prefetch workers (volumes made while the device computes)",
                      {s4, "all optimizations: +152% train / +140% inference", 5.3 / 2.1},
                      bf16};
    // PyTorch's counterparts (scripts/reference/dynunet_torch.py's RECIPES).
    s[kBaseline].claim.pytorch = {"fp32-eager"};
    s[kMixedPrecision].claim.pytorch = {"bf16-autocast"};
    s[kChannelsLast].claim.pytorch = {"channels-last"};
    s[kCompile].claim.pytorch = {"compile"};
    s[kFusedOptimizer].claim.pytorch = {"fused-adamw"};
    s[kCheckpointing].claim.pytorch_none = "the reference has no checkpointed variant";
    s[kGraphReplay].claim.pytorch = {"compile-cudagraphs"};
    s[kDataloader].claim.pytorch_none = "the reference times steps on volumes already made";
    return s;
  }();
  return stages;
}

std::optional<double> inference_claim(size_t stage) {
  switch (stage) {
    case kBaseline:
      return 1.0;
    case kMixedPrecision:
      return 12.8 / 8.2;
    case kChannelsLast:
      return 15.1 / 8.2;
    case kCompile:
    case kFusedOptimizer:
      return 18.9 / 8.2;
    case kDataloader:
      return 19.7 / 8.2;
    default:
      return std::nullopt;
  }
}

Switches switches_for(size_t stage, Precision reduced) {
  Switches sw;
  if (stage >= kMixedPrecision) sw.precision = reduced;
  if (stage >= kChannelsLast) sw.layout = Layout3d::ndhwc;
  sw.fused_norm = stage >= kCompile;
  sw.flat_optimizer = stage >= kFusedOptimizer;
  sw.checkpoint = stage == kCheckpointing;
  sw.prefetch = stage >= kDataloader;
  return sw;
}

}  // namespace sb::dynunet
