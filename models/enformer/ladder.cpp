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
  return sw;
}

}  // namespace sb::enformer
