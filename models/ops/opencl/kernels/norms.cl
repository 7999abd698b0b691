// LayerNorm and softmax over rows: one work-group of REDUCE_WG items per row, each item
// striding over the row's columns (consecutive items, consecutive addresses).

// The three-pass LayerNorm materializes its statistics: row means, then the row variances of
// the centred values, then the normalization.
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
                       __global const float* beta, float eps, int cols, __global float* y) {
  __local float counts[REDUCE_WG];
  __local float means[REDUCE_WG];
  __local float m2s[REDUCE_WG];
  const int t = get_local_id(0);
  const size_t base = (size_t)get_group_id(0) * cols;
  float count = 0.0f, mean = 0.0f, m2 = 0.0f;
  for (int c = t; c < cols; c += REDUCE_WG) {
    const float v = x[base + c];
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
    y[base + c] = (x[base + c] - row_mean) * inv_std * gamma[c] + beta[c];
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
