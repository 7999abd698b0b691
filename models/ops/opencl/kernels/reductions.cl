// Reductions: row statistics, sums over the middle axis, the masked mean over tokens.

// Row statistics in two passes, each materialized: the row means, then the row variances of the
// centred values (reading the means back). A work-group of REDUCE_WG items per row.
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void row_means(__global const float* x, int cols, __global float* means) {
  __local float scratch[REDUCE_WG];
  const int row = get_group_id(0);
  __global const float* xr = x + (size_t)row * cols;
  float s = 0.0f;
  for (int c = get_local_id(0); c < cols; c += REDUCE_WG) s += xr[c];
  s = group_sum(s, scratch);
  if (get_local_id(0) == 0) means[row] = s / cols;
}

__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void row_variances(__global const float* x, __global const float* means, int cols,
                   __global float* variances) {
  __local float scratch[REDUCE_WG];
  const int row = get_group_id(0);
  __global const float* xr = x + (size_t)row * cols;
  const float mean = means[row];
  float s = 0.0f;
  for (int c = get_local_id(0); c < cols; c += REDUCE_WG) {
    const float d = xr[c] - mean;
    s += d * d;
  }
  s = group_sum(s, scratch);
  if (get_local_id(0) == 0) variances[row] = s / cols;
}

// x viewed as [outer, n, inner]: y[o, i] = sum_j (has_weights ? w : 1)[o, j, i] x[o, j, i], an
// item per (o, i), so consecutive items read consecutive addresses.
__kernel void sum_axis1(__global const float* x, __global const float* weights, int has_weights,
                        int n, int inner, int columns, __global float* y) {
  const int i = get_global_id(0);
  if (i >= columns) return;
  const int o = i / inner;
  const size_t base = (size_t)o * n * inner + (i - o * inner);
  float s = 0.0f;
  for (int j = 0; j < n; ++j) {
    const size_t at = base + (size_t)j * inner;
    s += has_weights ? x[at] * weights[at] : x[at];
  }
  y[i] = s;
}

// sum_axis1 for a long middle axis: a work-group per (o, 32 columns), SA_LANES items down the
// middle axis per column, each summing every SA_LANES-th row, their sums merged in a fixed order
// (deterministic). sum_axis1's item per column walked all n rows alone: DeepFM's bias gradients
// (n 64-256, 3-1,024 columns, one to four work-groups) took 9 us a launch where its other small
// kernels took 5 (results/h200/dfm32-2026-11-29/timeline-on-kernels.txt: 9 calls, 0.083 ms).
#define SA_COLS 32
#define SA_LANES 8
__kernel __attribute__((reqd_work_group_size(SA_COLS * SA_LANES, 1, 1)))
void sum_axis1_split(__global const float* x, __global const float* weights, int has_weights,
                     int n, int inner, __global float* y) {
  __local float part[SA_LANES][SA_COLS];
  const int blocks = (inner + SA_COLS - 1) / SA_COLS;
  const int o = get_group_id(0) / blocks, block = get_group_id(0) - o * blocks;
  const int col = get_local_id(0) % SA_COLS, lane = get_local_id(0) / SA_COLS;
  const int i = block * SA_COLS + col;
  float s = 0.0f;
  if (i < inner) {
    const size_t base = (size_t)o * n * inner + i;
    for (int j = lane; j < n; j += SA_LANES) {
      const size_t at = base + (size_t)j * inner;
      s += has_weights ? x[at] * weights[at] : x[at];
    }
  }
  part[lane][col] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lane == 0 && i < inner) {
    for (int l = 1; l < SA_LANES; ++l) s += part[l][col];
    y[(size_t)o * inner + i] = s;
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

// masked_mean for widths that are a multiple of 4: a work-group per (b, 32 channels), 8 items
// across the channels, each reading 4 consecutive channels as one float4, and MM_SEQ across the
// sequence, each summing every MM_SEQ-th position; the partial sums merge in local memory in a
// fixed order, so the result does not vary between runs. masked_mean's item per output value
// gave Geneformer full 8,192 items that each walk 2,048 positions: too few loads in flight,
// 0.23 ms for its 67 MB (results/h200/gfa27-2026-11-28), which take 0.014 ms at the H200's
// bandwidth. No library has a weighted mean over a middle axis (CLBlast's reductions are
// whole-vector sums).
#define MM_QUADS 8
#define MM_SEQ 32
__kernel __attribute__((reqd_work_group_size(MM_QUADS * MM_SEQ, 1, 1)))
void masked_mean_quads(__global const float* x, __global const float* weights, int seq, int dim,
                       __global float* y) {
  __local float4 part[MM_SEQ][MM_QUADS];
  __local float wpart[MM_SEQ];
  const int q = get_local_id(0) % MM_QUADS, s0 = get_local_id(0) / MM_QUADS;
  const int quads = dim / 4, per_item = (quads + MM_QUADS - 1) / MM_QUADS;
  const int b = get_group_id(0) / per_item;
  const int quad = (get_group_id(0) - b * per_item) * MM_QUADS + q;
  const int live = quad < quads;
  __global const float* xb = x + (size_t)b * seq * dim + 4 * quad;
  __global const float* wb = weights + (size_t)b * seq;
  float4 sum = (float4)(0.0f);
  float wsum = 0.0f;
#pragma unroll 4
  for (int s = s0; s < seq; s += MM_SEQ) {
    const float w = wb[s];
    if (live) sum += w * LOAD4(xb, (size_t)s * dim);
    wsum += w;
  }
  part[s0][q] = sum;
  if (q == 0) wpart[s0] = wsum;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (s0 != 0 || !live) return;
  float4 t = (float4)(0.0f);
  float wt = 0.0f;
  for (int i = 0; i < MM_SEQ; ++i) {
    t += part[i][q];
    wt += wpart[i];
  }
  AT4(y, (size_t)b * dim + 4 * quad) = wt != 0.0f ? t / wt : (float4)(0.0f);
}
