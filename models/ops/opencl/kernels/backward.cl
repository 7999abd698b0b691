// Backward passes of the forward ops: the activations' derivatives (an item per element),
// LayerNorm's (row statistics, deterministic column partial sums for dgamma/dbeta, then dx, a
// work-group per row) and the row softmax's (a work-group per row).

// d act(v) / dv for the codes of apply_act (common.cl).
inline float act_derivative(float v, int act) {
  if (act == SB_ACT_RELU) return v > 0.0f ? 1.0f : 0.0f;
  if (act == SB_ACT_GELU) {  // d/dv of v sigmoid(1.702 v)
    const float s = 1.0f / (1.0f + exp(-1.702f * v));
    return s + 1.702f * v * s * (1.0f - s);
  }
  if (act == SB_ACT_SOFTPLUS) return 1.0f / (1.0f + exp(-v));  // softplus' = sigmoid
  if (act == SB_ACT_GELU_ERF)  // Phi(v) + v phi(v)
    return 0.5f * (1.0f + erf(v * M_SQRT1_2_F)) + v * 0.3989422804014327f * exp(-0.5f * v * v);
  if (act == SB_ACT_LEAKY_RELU) return v > 0.0f ? 1.0f : 0.01f;
  if (act == SB_ACT_SIGMOID) {  // s (1 - s)
    const float s = 1.0f / (1.0f + exp(-v));
    return s * (1.0f - s);
  }
  return 1.0f;
}

// dx = dy * act'(x); dx may be dy (each item reads its element before writing it).
__kernel void activation_backward(__global const float* x, __global const float* dy, int act,
                                  int n, __global float* dx) {
  const int i = get_global_id(0);
  if (i < n) dx[i] = dy[i] * act_derivative(x[i], act);
}

// dx = dropout(dy) * act'(x) under dropout's mask (kernels/elementwise.cl's mix32): the two
// kernels' operations in their order; dx may be dy.
__kernel void dropout_activation_backward(__global const float* x, __global const float* dy,
                                          int act, uint key, uint threshold, float scale, int n,
                                          __global float* dx) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const bool keep = (mix32(key ^ mix32((uint)i)) >> 8) >= threshold;
  const float d = keep ? dy[i] * scale : 0.0f;
  dx[i] = d * act_derivative(x[i], act);
}

// stats[2r] = mean of x[r, :], stats[2r + 1] = 1 / sqrt(variance + eps), two exact passes.
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void layernorm_backward_stats(__global const float* x, float eps, int cols,
                              __global float* stats) {
  __local float scratch[REDUCE_WG];
  const int row = get_group_id(0);
  const int t = get_local_id(0);
  __global const float* xr = x + (size_t)row * cols;
  float s = 0.0f;
  for (int c = t; c < cols; c += REDUCE_WG) s += xr[c];
  const float mean = group_sum(s, scratch) / cols;
  float q = 0.0f;
  for (int c = t; c < cols; c += REDUCE_WG) {
    const float d = xr[c] - mean;
    q += d * d;
  }
  const float var = group_sum(q, scratch) / cols;
  if (t == 0) {
    stats[2 * row] = mean;
    stats[2 * row + 1] = 1.0f / sqrt(var + eps);
  }
}

// Column partial sums over a chunk of rows: partials[chunk, c] = sum dy * xhat (dgamma) and
// partials[chunk, cols + c] = sum dy (dbeta), rows in order. An item per (chunk, column).
__kernel void layernorm_backward_partials(__global const float* x, __global const float* dy,
                                          __global const float* stats, int rows, int cols,
                                          int rows_per_chunk, int n, __global float* partials) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const int chunk = i / cols;
  const int c = i - chunk * cols;
  const int r0 = chunk * rows_per_chunk;
  const int r1 = min(rows, r0 + rows_per_chunk);
  float dg = 0.0f, db = 0.0f;
  for (int r = r0; r < r1; ++r) {
    const size_t at = (size_t)r * cols + c;
    const float g = dy[at];
    dg += g * (x[at] - stats[2 * r]) * stats[2 * r + 1];
    db += g;
  }
  partials[(size_t)chunk * 2 * cols + c] = dg;
  partials[(size_t)chunk * 2 * cols + cols + c] = db;
}

// dgamma[c], dbeta[c]: the chunks' partials summed in chunk order. An item per output.
__kernel void layernorm_backward_columns(__global const float* partials, int chunks, int cols,
                                         __global float* dgamma, __global float* dbeta) {
  const int j = get_global_id(0);
  if (j >= 2 * cols) return;
  float s = 0.0f;
  for (int k = 0; k < chunks; ++k) s += partials[(size_t)k * 2 * cols + j];
  if (j < cols)
    dgamma[j] = s;
  else
    dbeta[j - cols] = s;
}

// Row `row`'s dx (layernorm_backward_dx below), a work-group of REDUCE_WG items over the row:
// the dx kernel's body and the merged kernel's second part, so that both compute the same bits.
void layernorm_dx_row(__global const float* x, __global const float* gamma,
                      __global const float* stats, __global const float* dy, int cols,
                      __global float* dx, int row, int t, __local float* scratch) {
  const size_t base = (size_t)row * cols;
  const float mean = stats[2 * row], rstd = stats[2 * row + 1];
  float sg = 0.0f, sgx = 0.0f;
  for (int c = t; c < cols; c += REDUCE_WG) {
    const float g = dy[base + c] * gamma[c];
    sg += g;
    sgx += g * (x[base + c] - mean) * rstd;
  }
  const float mean_g = group_sum(sg, scratch) / cols;
  const float mean_gx = group_sum(sgx, scratch) / cols;
  for (int c = t; c < cols; c += REDUCE_WG) {
    const float xhat = (x[base + c] - mean) * rstd;
    dx[base + c] = rstd * (dy[base + c] * gamma[c] - mean_g - xhat * mean_gx);
  }
}

// dx = rstd (g - mean(g) - xhat mean(g xhat)), g = dy gamma, per row. dx may be dy: every item
// reads its own columns of dy, and writes them only after the row's sums are complete.
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void layernorm_backward_dx(__global const float* x, __global const float* gamma,
                           __global const float* stats, __global const float* dy, int cols,
                           __global float* dx) {
  __local float scratch[REDUCE_WG];
  const int row = get_group_id(0);
  const int t = get_local_id(0);
  layernorm_dx_row(x, gamma, stats, dy, cols, dx, row, t, scratch);
}

// layernorm_backward_dx and layernorm_backward_columns in one launch (dfm36; backward.cpp, which
// takes it where rows x REDUCE_WG items cover the 2 cols sums): a work-group per row as the dx
// kernel, and item t of row r's group first sums output r * REDUCE_WG + t as the columns kernel
// does (no barrier in that part, and no work-item leaves before the barriers). The same
// operations, so the same bits, a launch fewer. The sums read only the partials, which the kernel
// before wrote, so dx may be dy.
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void layernorm_backward_dx_columns(__global const float* x, __global const float* gamma,
                                   __global const float* stats, __global const float* dy, int cols,
                                   __global float* dx, __global const float* partials, int chunks,
                                   __global float* dgamma, __global float* dbeta) {
  __local float scratch[REDUCE_WG];
  const int row = get_group_id(0);
  const int t = get_local_id(0);
  const int j = row * REDUCE_WG + t;
  if (j < 2 * cols) {
    float s = 0.0f;
    for (int k = 0; k < chunks; ++k) s += partials[(size_t)k * 2 * cols + j];
    if (j < cols)
      dgamma[j] = s;
    else
      dbeta[j - cols] = s;
  }
  layernorm_dx_row(x, gamma, stats, dy, cols, dx, row, t, scratch);
}

// dx[r, :] = y[r, :] * (dy[r, :] - sum_c dy[r, c] y[r, c]); dx may be dy (as above).
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void softmax_rows_backward(__global const float* y, __global const float* dy, int cols,
                           __global float* dx) {
  __local float scratch[REDUCE_WG];
  const size_t base = (size_t)get_group_id(0) * cols;
  const int t = get_local_id(0);
  float s = 0.0f;
  for (int c = t; c < cols; c += REDUCE_WG) s += dy[base + c] * y[base + c];
  s = group_sum(s, scratch);
  for (int c = t; c < cols; c += REDUCE_WG) dx[base + c] = y[base + c] * (dy[base + c] - s);
}
