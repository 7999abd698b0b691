// Which f16 masked attention kernel runs on NVIDIA's tensor cores (attention_masked.cpp), from
// STAGEBENCH_MMA_ATTENTION (gemm_mma.cpp), so that one session can time them against each other.
#pragma once

namespace sb {

// 16-query blocks a warp; whether K and V are read in place from half activations (no packing
// pass; where they are not half or not 16-byte aligned, the packing kernel runs instead);
// whether P's repack and exp2 take the one-instruction forms (FA_FAST in
// kernels/attention_mma_body.cl).
struct AttentionChoice {
  int blocks = 2;
  bool direct = true, fast = true;
};
AttentionChoice attention_choice();

}  // namespace sb
