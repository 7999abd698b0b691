// BERT-style encoder ops: embedding gather, key-padding bias, residual + LayerNorm, masked
// mean pooling. The fused attention kernel lives in bert_attention.cl (one copy per head width).

// y[t, c] = table[clamp(ids[t]), c] + (has_rows ? rows[t % seq, c] : 0); t over B * S tokens.
// Out-of-range ids are clamped: the host cannot afford to read ids back to validate them.
__kernel void embedding_gather(__global const float* table, int vocab, __global const int* ids,
                               __global const float* rows, int has_rows, int seq, int dim,
                               int n, __global float* y) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const int token = i / dim;
  const int c = i - token * dim;
  const int id = clamp(ids[token], 0, vocab - 1);
  float v = table[(size_t)id * dim + c];
  if (has_rows) v += rows[(size_t)(token % seq) * dim + c];
  y[i] = v;
}

// logits[bh, i, j] += key_bias[bh / heads, j]; logits [B * heads, n, n], key_bias [B, n].
__kernel void add_key_bias(__global float* logits, __global const float* key_bias, int heads,
                           int n, int total) {
  const int e = get_global_id(0);
  if (e >= total) return;
  const int j = e % n;
  const int bh = e / n / n;
  logits[e] += key_bias[(bh / heads) * n + j];
}

// y = LayerNorm(x + residual) for rows of at most 32 x LN_LANES columns: LN_ROWS rows per
// work-group, LN_LANES items per row, each holding its columns in registers (so the mean and the centred variance
// are two exact passes over registers, not over memory), reduced through local memory. A
// work-group per row with one column per item spent most of its time in barriers.
#define LN_LANES 32
#define LN_ROWS 8
#define LN_PER_LANE 32
__kernel __attribute__((reqd_work_group_size(LN_LANES * LN_ROWS, 1, 1)))
void add_layernorm_rows(__global const float* x, __global const float* residual,
                        __global const float* gamma, __global const float* beta, float eps,
                        int cols, int rows, __global float* y) {
  __local float partial[LN_ROWS][LN_LANES];
  const int lane = get_local_id(0) % LN_LANES, r = get_local_id(0) / LN_LANES;
  const int row = get_group_id(0) * LN_ROWS + r;
  const size_t base = (size_t)min(row, rows - 1) * cols;
  float v[LN_PER_LANE];
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < LN_PER_LANE; ++i) {
    const int c = lane + i * LN_LANES;
    v[i] = c < cols ? x[base + c] + residual[base + c] : 0.0f;
    sum += v[i];
  }
  for (int pass = 0; pass < 2; ++pass) {  // 0: the mean, 1: the centred sum of squares
    partial[r][lane] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int offset = LN_LANES / 2; offset > 0; offset >>= 1) {
      if (lane < offset) partial[r][lane] += partial[r][lane + offset];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float total = partial[r][0];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (pass == 0) {
      const float mean = total / cols;
      sum = 0.0f;
#pragma unroll
      for (int i = 0; i < LN_PER_LANE; ++i) {
        v[i] -= mean;
        if (lane + i * LN_LANES < cols) sum += v[i] * v[i];
      }
    } else {
      const float inv_std = 1.0f / sqrt(total / cols + eps);
      if (row < rows) {
#pragma unroll
        for (int i = 0; i < LN_PER_LANE; ++i) {
          const int c = lane + i * LN_LANES;
          if (c < cols) y[base + c] = v[i] * inv_std * gamma[c] + beta[c];
        }
      }
    }
  }
}

// y[b, c] = sum_s w[b, s] x[b, s, c] / sum_s w[b, s] (0 without weight); an item per (b, c),
// so consecutive items read consecutive channels.
__kernel void masked_mean(__global const float* x, __global const float* weights, int seq,
                          int dim, int n, __global float* y) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const int b = i / dim;
  const int c = i - b * dim;
  __global const float* xb = x + (size_t)b * seq * dim + c;
  __global const float* wb = weights + (size_t)b * seq;
  float sum = 0.0f, weight = 0.0f;
  for (int s = 0; s < seq; ++s) {
    const float w = wb[s];
    sum += w * xb[(size_t)s * dim];
    weight += w;
  }
  y[i] = weight != 0.0f ? sum / weight : 0.0f;
}
