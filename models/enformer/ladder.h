#pragma once
// Enformer's optimization ladder (docs/ladders.md, seed 000): each stage is a set of switches the
// model reads; stage k carries every optimization of stages 0..k that applies here.
#include <string>
#include <vector>

#include "contract/workload.h"
#include "models/ops/backend.h"

namespace sb::enformer {

enum StageIndex : size_t {
  kOriginal = 0,
  kTf32,
  kFusedAttention,
  kFusedGelu,
  kFusedLayerNorm,
  kGraphCompile,
  kBf16,
  kInt8Weights,
  kStageCount
};

struct Switches {
  Precision precision = Precision::f32;  // of every conv and linear GEMM
  // Of the fused relative attention's products: the GEMMs' precision, except in the int8 stage,
  // which quantizes weights only and keeps the reduced precision's attention.
  Precision attention = Precision::f32;
  bool fused_attention = false;
  bool fused_gelu = false;
  bool fused_layernorm = false;
  // BN+GELU folded into the conv input, residual adds and activations in GEMM epilogues,
  // attention pool in one pass, q scale folded into Wq, positional features and rel_k computed
  // once per length, a static memory plan (buffers kept across calls).
  bool graph_compile = false;
  // The stem's 15 taps as 16, a zero tap first (im2col's 16 taps reach one position further
  // left), so that its GEMM's K is 64, not 60: on OpenCL's tensor cores (fp16 and int8) a K off
  // the multiples of 8 (16 for int8) takes the register-staged mma kernel, 1.3 ms of the bf16
  // stage's 16.3 on an H200 (results/h200/attn28-2026-11-28). The zero tap adds exact zeros.
  bool stem_taps16 = false;
  // Issue 27: the transformer's activations that only f16 products read (the LayerNorms'
  // outputs, K, V, the attention's context, the first feed-forward's output, rel_k) are written
  // in f16 by their producers, so no conversion pass runs before an f16 GEMM or the f16
  // attention. The residual stream, Q (read as fp32 by the attention, with its biases) and every
  // statistic stay fp32. Set by the workload where the f16 tensor-core kernels exist;
  // STAGEBENCH_HALF_ACTIVATIONS=off turns it off for A/B runs.
  bool half_activations = false;
  // Issue 27: each pool whose output only the next conv block reads applies that block's input
  // transform (BN + GELU) before its store, and the conv reads it as it is (no channels_to_f16
  // pass in f16, no transforming pass in tf32 or int8). With graph_compile (the fused pool);
  // STAGEBENCH_ENFORMER_POOL_TRANSFORM=off turns it off (for A/B runs).
  bool pool_transform = false;
};

const std::vector<StageSpec>& ladder();
size_t stage_index(const std::string& id);  // throws naming the unknown stage and the ladder

// The switches of `stage` given which stages apply on this backend (skipped ones contribute
// nothing to the stages above them). `reduced` is the backend's name for half precision:
// bf16 on the CPU, fp16 on OpenCL.
Switches switches_for(size_t stage, const std::vector<bool>& applies, Precision reduced);

}  // namespace sb::enformer
