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
