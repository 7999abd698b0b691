#pragma once
// The masked (BERT) attention at a reduced precision on oneDNN's bf16 matmul, which runs on AMX
// tiles where the CPU has them (Sapphire Rapids: brgemm's avx512_core_amx kernels) and on
// AVX512-BF16 dot products elsewhere. Per batch item, over its unpadded keys [0, end) only:
//   S = (scale Q) K^T        one matmul over the heads, bf16 in, fp32 out;
//   P = softmax(S + bias)    fp32 statistics, P rounded to bf16;
//   O = P V                  one matmul over the heads, bf16 in, fp32 out, copied into place.
// Or (batched) each product once over every item, keys padded to the longest item's.
// Only compiled in oneDNN builds (STAGEBENCH_HAVE_DNNL).
#include <cstdint>
#include <string>
#include <vector>

#include "models/ops/backend.h"
#include "models/ops/cpu/attention_masked.h"

namespace sb::cpu {

// Whether a call of this shape takes it: a reduced precision (bf16, or f16, which the CPU
// computes as bf16), a CPU on which oneDNN runs bf16 (DnnlGemm::unsupported_reason) and
// STAGEBENCH_CPU_ATTENTION_ONEDNN not off (unset is batched; off leaves the older paths:
// STAGEBENCH_CPU_ATTENTION_BF16's kernel, else the fp32 streaming kernel).
bool masked_attention_uses_onednn(const AttentionShape& s);

// The scratch it needs, in floats: the bf16 operands, scores (fp32), weights (bf16) and a dense
// output of every item, keys padded to 32.
int64_t masked_attention_onednn_scratch(const AttentionShape& s);

// out = attention(d) for every item; ends[b] = the keys item b attends to (masked_key_ends).
// scratch: masked_attention_onednn_scratch(s) floats, 64-byte aligned.
void masked_attention_onednn(const AttentionShape& s, const MaskedAttentionData& d,
                             const std::vector<int64_t>& ends, float* scratch,
                             OneDnnAttention mode = OneDnnAttention::items);

// The oneDNN implementations the last call's two products ran on (impl_info_str, "scores /
// output"), so a test or a log can tell AMX, AVX512-BF16 and the reference kernel apart.
std::string masked_attention_onednn_impls();

}  // namespace sb::cpu
