#pragma once
// The streaming masked (BERT) attention kernel with its block sizes exposed, so tests can run
// it with blocks smaller than their sequence and cover the block edges.
#include <cstdint>
#include <vector>

#include "models/ops/backend.h"

namespace sb::cpu {

struct MaskedAttentionData {
  const float* q;  // rows of ld_q, as AttentionShape says; likewise k and v
  const float* k;
  const float* v;
  const float* key_bias;  // [B, n], or null
  float* out;             // rows of ld_out
};

// 128 queries against 512 keys a step: each K and V block is packed for twice the queries of
// 64 x 256, and Geneformer small's 512 keys are one block (no running-max rescale). Single-core
// CPU time of Geneformer small's attention, 64 x 256 against 128 x 512, on the 2-core VM:
// 10.99 against 10.63 ms with its padded keys trimmed (scratch benchmark, gfcpu37).
inline constexpr int64_t kMaskedQueryBlock = 128;
inline constexpr int64_t kMaskedKeyBlock = 512;

// Keys [0, end) of each item: past `end` every key carries the mask's bias (kMaskedLogit or
// below). An item with no unmasked key keeps all n, as the untrimmed kernel computes it. Without
// `trim` (or a bias) every item keeps all n.
std::vector<int64_t> masked_key_ends(const AttentionShape& s, const float* key_bias, bool trim);

// STAGEBENCH_CPU_ATTENTION_ONEDNN, for oneDNN builds at a reduced precision
// (attention_masked_onednn.h): batched (the default: one pair of bf16 matmuls over every item,
// each item's keys padded to the longest's), items (or on: a pair per batch item over its own
// keys) or off (the streaming kernels here). On the 16-core host batched was 1.17x faster than
// off for Geneformer small's engine-fp16, items 1.12x (gfamx38). Read in every build, so that a
// bad value fails anywhere.
enum class OneDnnAttention { off, items, batched };
OneDnnAttention onednn_attention_mode();

// Whether a call of this shape takes the bf16 block kernel (attention_masked_bf16.h): a reduced
// precision, a build with AVX512-BF16, an even head width and STAGEBENCH_CPU_ATTENTION_BF16=on
// (off by default: slower than the fp32 kernel on the 16-core host, attention_masked.cpp).
bool masked_attention_uses_bf16(const AttentionShape& s);

void masked_attention_streaming(const AttentionShape& s, const MaskedAttentionData& d,
                                int64_t query_block = kMaskedQueryBlock,
                                int64_t key_block = kMaskedKeyBlock);

}  // namespace sb::cpu
