#pragma once
// The bf16 block kernel of the streaming masked attention (attention_masked.cpp), for the stages
// whose precision is reduced: Q K^T and P V on bf16 operands with fp32 accumulation (AVX512-BF16
// dot products), softmax statistics, running max and sum and the output accumulator in fp32, as
// PyTorch's bf16 SDPA computes on the CPU.
#include <cstdint>
#include <vector>

#include "models/ops/backend.h"
#include "models/ops/cpu/attention_masked.h"

namespace sb::cpu {

// Whether this build has the kernel: it is compiled only where the compiler targets
// AVX512-BF16 (-march=sapphirerapids, or -march=native on such a CPU); elsewhere the fp32 path
// runs at every precision.
bool masked_attention_bf16_built();

// One thread's buffers, reused across its tasks, sized for full blocks. The products run
// transposed, queries along the vector lanes: S^T = K Q^T and O^T += V^T P^T, so that K's rows
// and V's row pairs are broadcast as they are stored and only the query block is transposed.
struct MaskedAttentionBf16Workspace {
  MaskedAttentionBf16Workspace(int64_t query_block, int64_t key_block, int64_t dh);
  int64_t qp_cols;                      // the query block rounded up to 16 lanes
  std::vector<uint16_t> q_pairs;        // [dh / 2][qp_cols][2]: the scaled queries, d-pairs
  std::vector<uint16_t> k;              // [key_block][dh]: the key block
  std::vector<uint16_t> v_pairs;        // [key_block / 2][dh][2]: V, key pairs interleaved
  std::vector<float> scores;            // [key_block][qp_cols]: S^T, fp32
  std::vector<uint16_t> p_pairs;        // [key_block / 2][qp_cols][2]: P^T, key pairs interleaved
  std::vector<float> acc;               // [dh][qp_cols]: O^T, fp32
  std::vector<float> row_max, row_sum;  // [qp_cols]
};

// Queries [i0, i0 + bq) of item b, head h against keys [0, key_end) in blocks of kb; dh even.
void attend_query_block_bf16(const AttentionShape& s, const MaskedAttentionData& d, int64_t b,
                             int64_t h, int64_t i0, int64_t bq, int64_t kb, int64_t key_end,
                             MaskedAttentionBf16Workspace& w);

}  // namespace sb::cpu
