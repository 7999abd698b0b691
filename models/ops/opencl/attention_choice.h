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

// Whether the tensor-core attention kernels skip the key tiles after each item's last unmasked
// key (has_bias 2 in kernels/attention_mma_body.cl; the output is the same bit for bit):
// STAGEBENCH_ATTENTION_TRIM=on (default) or off, for A/B runs. Anything else throws.
bool attention_trim();

}  // namespace sb
