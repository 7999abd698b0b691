#pragma once
// The streaming masked (BERT) attention kernel with its block sizes exposed, so tests can run
// it with blocks smaller than their sequence and cover the block edges.
#include <cstdint>

#include "models/ops/backend.h"

namespace sb::cpu {

struct MaskedAttentionData {
  const float* q;  // rows of ld_q, as AttentionShape says; likewise k and v
  const float* k;
  const float* v;
  const float* key_bias;  // [B, n], or null
  float* out;             // rows of ld_out
};

inline constexpr int64_t kMaskedQueryBlock = 64;
inline constexpr int64_t kMaskedKeyBlock = 256;

void masked_attention_streaming(const AttentionShape& s, const MaskedAttentionData& d,
                                int64_t query_block = kMaskedQueryBlock,
                                int64_t key_block = kMaskedKeyBlock);

}  // namespace sb::cpu
