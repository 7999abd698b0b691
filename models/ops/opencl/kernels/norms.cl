// LayerNorm and softmax: one work-group of REDUCE_WG items per row for the row reductions, each
// item striding over the row's columns (consecutive items, consecutive addresses).

// y = (x - means[row]) / sqrt(variances[row] + eps) * gamma + beta, the statistics from
// row_means and row_variances (reductions.cl): LayerNorm's last pass when it runs as separate
// passes. An item per element.
__kernel void layernorm_apply(__global const float* x, __global const float* means,
                              __global const float* variances, __global const float* gamma,
                              __global const float* beta, float eps, int cols, int n,
                              __global float* y) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const int row = i / cols;
  const int c = i - row * cols;
  const float inv_std = 1.0f / sqrt(variances[row] + eps);
  y[i] = (x[i] - means[row]) * inv_std * gamma[c] + beta[c];
}

// One pass: each item runs Welford over its columns, the work-group merges the partial
// (count, mean, M2) triples pairwise (Chan et al.), then every item normalizes its columns.
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void layernorm_welford(__global const float* x, __global const float* gamma,
                       __global const float* beta, float eps, int cols, __global float* y,
                       int halves) {
  const int hx = halves & ACT_HALF_X, hy = halves & ACT_HALF_Y;
  __local float counts[REDUCE_WG];
  __local float means[REDUCE_WG];
  __local float m2s[REDUCE_WG];
  const int t = get_local_id(0);
  const size_t base = (size_t)get_group_id(0) * cols;
  float count = 0.0f, mean = 0.0f, m2 = 0.0f;
  for (int c = t; c < cols; c += REDUCE_WG) {
    const float v = act_load(x, base + c, hx);
    count += 1.0f;
    const float d = v - mean;
    mean += d / count;
    m2 += d * (v - mean);
  }
  counts[t] = count;
  means[t] = mean;
  m2s[t] = m2;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int offset = REDUCE_WG / 2; offset > 0; offset >>= 1) {
    if (t < offset) {
      const float na = counts[t], nb = counts[t + offset];
      const float n = na + nb;
      if (nb > 0.0f) {
        const float delta = means[t + offset] - means[t];
        means[t] += delta * (nb / n);
        m2s[t] += m2s[t + offset] + delta * delta * (na * nb / n);
        counts[t] = n;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float row_mean = means[0];
  const float inv_std = 1.0f / sqrt(m2s[0] / cols + eps);
  for (int c = t; c < cols; c += REDUCE_WG)
    act_store(y, base + c, (act_load(x, base + c, hx) - row_mean) * inv_std * gamma[c] + beta[c],
              hy);
}

// In place: x[r, :] = softmax(x[r, :]).
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void softmax_rows(__global float* x, int cols) {
  __local float scratch[REDUCE_WG];
  __global float* xr = x + (size_t)get_group_id(0) * cols;
  const int t = get_local_id(0);
  float m = -INFINITY;
  for (int c = t; c < cols; c += REDUCE_WG) m = fmax(m, xr[c]);
  m = group_max(m, scratch);
  float s = 0.0f;
  for (int c = t; c < cols; c += REDUCE_WG) s += exp(xr[c] - m);
  const float inv_sum = 1.0f / group_sum(s, scratch);
  for (int c = t; c < cols; c += REDUCE_WG) xr[c] = exp(xr[c] - m) * inv_sum;
}

// y = LayerNorm(x + residual) for rows of at most 32 x LN_LANES columns: LN_ROWS rows per
// work-group, LN_LANES items per row, each holding its columns in registers (so the mean and
// the centred variance are two exact passes over registers, not over memory), reduced through
// local memory. A work-group per row with one column per item spent most of its time in
// barriers.
#define LN_LANES 32
#define LN_ROWS 8
#define LN_PER_LANE 32
__kernel __attribute__((reqd_work_group_size(LN_LANES * LN_ROWS, 1, 1)))
void add_layernorm_rows(__global const float* x, __global const float* residual,
                        __global const float* gamma, __global const float* beta, float eps,
                        int cols, int rows, __global float* y, int halves) {
  __local float partial[LN_ROWS][LN_LANES];
  const int hx = halves & ACT_HALF_X, hr = halves & ACT_HALF_RESIDUAL, hy = halves & ACT_HALF_Y;
  const int lane = get_local_id(0) % LN_LANES, r = get_local_id(0) / LN_LANES;
  const int row = get_group_id(0) * LN_ROWS + r;
  // The last group's rows past `rows` read nothing: they only take part in the barriers. (They
  // used to re-read the last row, clamped, which its own items overwrite when y is x or
  // residual: a read-write race by the OpenCL memory model, since barriers with
  // CLK_LOCAL_MEM_FENCE order no global accesses. Oclgrind found it; docs/testing.md.)
  const bool live = row < rows;
  const size_t base = (size_t)row * cols;
  float v[LN_PER_LANE];
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < LN_PER_LANE; ++i) {
    const int c = lane + i * LN_LANES;
    v[i] = live && c < cols ? act_load(x, base + c, hx) + act_load(residual, base + c, hr) : 0.0f;
    sum += v[i];
  }
  for (int pass = 0; pass < 2; ++pass) {  // 0: the mean, 1: the centred sum of squares
    // Every lane sums its row's 32 partials itself, in the same order: two barriers a pass
    // where the tree took seven (the rows are short; Geneformer's 256 columns spent more time
    // waiting at barriers than moving data).
    partial[r][lane] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    float total = 0.0f;
#pragma unroll
    for (int i = 0; i < LN_LANES; ++i) total += partial[r][i];
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
      if (live) {
#pragma unroll
        for (int i = 0; i < LN_PER_LANE; ++i) {
          const int c = lane + i * LN_LANES;
          if (c < cols) act_store(y, base + c, v[i] * inv_std * gamma[c] + beta[c], hy);
        }
      }
    }
  }
}

// x viewed as [outer, n, inner]: softmax over n for each (outer, inner), an item per
// (outer, inner) so consecutive items read consecutive addresses. Each item reads its column
// before writing it, so y may be x.
__kernel void softmax_axis1(__global const float* x, int n, int inner, int columns,
                            __global float* y) {
  const int i = get_global_id(0);
  if (i >= columns) return;
  const int o = i / inner;
  const size_t base = (size_t)o * n * inner + (i - o * inner);
  float m = -INFINITY;
  for (int j = 0; j < n; ++j) m = fmax(m, x[base + (size_t)j * inner]);
  float s = 0.0f;
  for (int j = 0; j < n; ++j) s += exp(x[base + (size_t)j * inner] - m);
  const float inv_sum = 1.0f / s;
  for (int j = 0; j < n; ++j) {
    const size_t at = base + (size_t)j * inner;
    y[at] = exp(x[at] - m) * inv_sum;
  }
}
