#include "models/enformer/ladder.h"

namespace sb::enformer {

const std::vector<StageSpec>& ladder() {
  static const std::vector<StageSpec> stages = [] {
    const std::string src = "seed 000";
    std::vector<StageSpec> s(kStageCount);
    s[kOriginal] = {"original",
                    "Original (eager, materialized attention)",
                    {src, "baseline: L4 0.350 s, 3.76 GB", 1.0},
                    {0.99999, "fp32"}};
    s[kTf32] = {"tf32",
                "TF32 tensor-core matmul",
                {src, "memory optimizations (TF32, optimized attention): ~10% with fused-attention",
                 std::nullopt},
                {0.9999, "tf32"}};
    s[kFusedAttention] = {"fused-attention",
                          "Fused attention (streaming softmax, no n x n)",
                          {src, "memory optimizations: ~10% (with tf32)", 1.10},
                          {0.99999, "fp32"}};
    s[kFusedGelu] = {"fused-gelu",
                     "Fused GELU (one pass / GEMM epilogue)",
                     {src, "Triton kernels: ~20% (with fused-layernorm)", std::nullopt},
                     {0.99999, "fp32"}};
    s[kFusedLayerNorm] = {"fused-layernorm",
                          "Fused LayerNorm (one Welford pass)",
                          {src, "Triton kernels: ~20% (with fused-gelu); 10% + 20%", 1.30},
                          {0.99999, "fp32"}};
    s[kGraphCompile] = {"graph-compile",
                        "Graph compile (fusions, static plan, cached positions)",
                        {src, "torch.compile: ~45%; all three: 1.76x total", 1.76},
                        {0.99999, "fp32"}};
    s[kBf16] = {"bf16",
                "Reduced-precision matmul (bf16 CPU / fp16 OpenCL)",
                {src, "future improvement: mixed precision", std::nullopt},
                {0.999, "bf16"}};
    s[kInt8Weights] = {"int8-weights",
                       "INT8 weights, per-channel scales",
                       {src, "future improvement: INT8 quantization", std::nullopt},
                       {0.99, "int8"}};
    // PyTorch's counterparts (scripts/reference/enformer_torch.py's peer variants).
    const std::string by_compile =
        "no switch of its own in PyTorch: torch.compile makes this fusion with the others "
        "(graph-compile's row)";
    s[kOriginal].claim.pytorch = {"fp32-eager"};
    s[kTf32].claim.pytorch = {"tf32"};
    s[kFusedAttention].claim.pytorch_none =
        "Enformer's attention (relative-position logits) has no fused PyTorch kernel; "
        "torch.compile fuses it (graph-compile's row)";
    s[kFusedGelu].claim.pytorch_none = by_compile;
    s[kFusedLayerNorm].claim.pytorch_none = by_compile;
    s[kGraphCompile].claim.pytorch = {"compile-tf32", "compile-fp32"};
    s[kBf16].claim.pytorch = {"compile-bf16", "compile-fp16", "compile-fp16-cudagraphs",
                              "compile-fp16-max-autotune"};
    s[kInt8Weights].claim.pytorch_none = "the reference's menu has no int8 inference";
    return s;
  }();
  return stages;
}

size_t stage_index(const std::string& id) {
  return find_stage(ladder(), id, "enformer");
}

Switches switches_for(size_t stage, const std::vector<bool>& applies, Precision reduced) {
  Switches sw;
  auto on = [&](size_t k) { return k <= stage && applies.at(k); };
  if (on(kTf32)) sw.precision = sw.attention = Precision::tf32;
  sw.fused_attention = on(kFusedAttention);
  sw.fused_gelu = on(kFusedGelu);
  sw.fused_layernorm = on(kFusedLayerNorm);
  sw.graph_compile = on(kGraphCompile);
  if (on(kBf16)) sw.precision = sw.attention = reduced;
  if (on(kInt8Weights)) sw.precision = Precision::int8;
  sw.stem_taps16 = reduced == Precision::f16 &&
                   (sw.precision == Precision::f16 || sw.precision == Precision::int8);
  return sw;
}

}  // namespace sb::enformer
