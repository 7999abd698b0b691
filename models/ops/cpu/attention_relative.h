#pragma once
// The streaming relative (Transformer-XL) attention kernel with its block sizes exposed, so
// tests can run it with blocks smaller than their sequence and cover the block edges.
#include <cstdint>

#include "models/ops/backend.h"

namespace sb::cpu {

struct RelAttentionData {
  const float* q;             // [B, n, H*dk]
  const float* k;             // [B, n, H*dk]
  const float* v;             // [B, n, H*dv]
  const float* rel_k;         // [2n-1, H*dk]
  const float* content_bias;  // [H*dk]
  const float* pos_bias;      // [H*dk]
  float* out;                 // [B, n, H*dv]
};

inline constexpr int64_t kAttentionQueryBlock = 64;
inline constexpr int64_t kAttentionKeyBlock = 256;

void rel_attention_streaming(const RelAttentionShape& s, const RelAttentionData& d,
                             int64_t query_block = kAttentionQueryBlock,
                             int64_t key_block = kAttentionKeyBlock);

}  // namespace sb::cpu
