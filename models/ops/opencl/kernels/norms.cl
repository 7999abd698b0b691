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

// y = LayerNorm(x + residual) (x alone where has_residual is 0) for rows whose width is a
// multiple of 8 and at most 8 x LN_LANES x LNV_CHUNKS: LN_ROWS rows a work-group, LN_LANES
// items a row, item `lane` holding columns 8 (lane + LN_LANES j) .. +7 in registers, read as
// one 16-byte load of f16 (two of fp32). Each item reduces its own values exactly (its mean,
// then its centred squares), and every item of the row merges the 32 (sum, M2) pairs by Chan's
// formula, in the same order: one barrier a row where add_layernorm_rows takes four, and 16-byte
// accesses where it makes 2-byte ones. That kernel ran at 0.13 ms a call on Geneformer full's
// 65,536 x 256 f16 rows (results/h200/gfa27-2026-11-28), whose 100 MB take 0.02 ms at the
// H200's bandwidth: it waited on barriers, not memory. No library does this: CLBlast has no
// LayerNorm, and the stages need the residual add and the f16 loads and stores in the kernel.
//
// The body takes `chunks` (8-column groups a lane holds, at most LNV_CHUNKS) as a constant from
// each kernel below, so a 256-wide row (Geneformer) keeps 8 values a lane live across the
// barrier, not 32: one kernel for every width held 32 registers of values for the widest row
// and took 0.127 ms a call on Geneformer full's 65,536 x 256 f16 rows
// (results/h200/lead30-2026-11-28/geneformer), six times what its bytes take. The lanes'
// counts come from one division a row, not two a partial merged.
#define LNV_CHUNKS 4
inline void layernorm_vec8_rows(__global const float* x, __global const float* residual,
                                int has_residual, __global const float* gamma,
                                __global const float* beta, float eps, int cols, int rows,
                                __global float* y, int halves, const int chunks,
                                __local float2 (*partial)[LN_LANES]) {
  const int hx = halves & ACT_HALF_X, hr = halves & ACT_HALF_RESIDUAL, hy = halves & ACT_HALF_Y;
  const int lane = get_local_id(0) % LN_LANES, r = get_local_id(0) / LN_LANES;
  const int row = get_group_id(0) * LN_ROWS + r;
  // Rows past `rows` (the last group's) read nothing and only take part in the barrier.
  const int live = row < rows;
  const size_t base = (size_t)row * cols;
  const int groups8 = cols / 8;  // 8-column groups; lane takes lane, lane + 32, ...
  // lane i holds 8 (full + (i < rem)) values (none past the row's end)
  const int full = groups8 / LN_LANES, rem = groups8 - full * LN_LANES;
  const float inv_more = 1.0f / (8 * (full + 1)), inv_full = full > 0 ? 1.0f / (8 * full) : 0.0f;
  float v[LNV_CHUNKS][8];
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < chunks; ++j) {
    const int g = lane + LN_LANES * j;
    const int in = live && g < groups8;
    act_load8(x, base + 8 * g, hx, in, v[j]);
    if (has_residual) {
      float t[8];
      act_load8(residual, base + 8 * g, hr, in, t);
#pragma unroll
      for (int k = 0; k < 8; ++k) v[j][k] += t[k];
    }
#pragma unroll
    for (int k = 0; k < 8; ++k) sum += v[j][k];
  }
  const float my_mean = sum * (lane < rem ? inv_more : inv_full);
  float m2 = 0.0f;
#pragma unroll
  for (int j = 0; j < chunks; ++j) {
    if (lane + LN_LANES * j < groups8) {
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const float d = v[j][k] - my_mean;
        m2 += d * d;
      }
    }
  }
  partial[r][lane] = (float2)(sum, m2);
  barrier(CLK_LOCAL_MEM_FENCE);
  float total = 0.0f;
#pragma unroll
  for (int i = 0; i < LN_LANES; ++i) total += partial[r][i].x;
  const float mean = total / cols;
  float m2_row = 0.0f;
#pragma unroll
  for (int i = 0; i < LN_LANES; ++i) {
    const int n = 8 * (full + (i < rem ? 1 : 0));
    if (n > 0) {
      const float d = partial[r][i].x * (i < rem ? inv_more : inv_full) - mean;
      m2_row += partial[r][i].y + n * d * d;
    }
  }
  const float inv_std = 1.0f / sqrt(m2_row / cols + eps);
#pragma unroll
  for (int j = 0; j < chunks; ++j) {
    const int g = lane + LN_LANES * j;
    if (!live || g >= groups8) continue;
    layernorm_store8(v[j], mean, inv_std, gamma, beta, 8 * g, y, base + 8 * g, hy);
  }
}

// layernorm_vec8_rows for rows of at most 8 x LN_LANES x CHUNKS columns; the host picks the
// smallest that holds the row (launch_layernorm_vec8, norms.cpp).
#define LAYERNORM_VEC8(CHUNKS)                                                                   \
  __kernel __attribute__((reqd_work_group_size(LN_LANES * LN_ROWS, 1, 1))) void                \
      layernorm_rows_vec8_##CHUNKS(__global const float* x, __global const float* residual,    \
                                   int has_residual, __global const float* gamma,             \
                                   __global const float* beta, float eps, int cols, int rows, \
                                   __global float* y, int halves) {                           \
    __local float2 partial[LN_ROWS][LN_LANES];                                                \
    layernorm_vec8_rows(x, residual, has_residual, gamma, beta, eps, cols, rows, y, halves,    \
                        CHUNKS, partial);                                                      \
  }
LAYERNORM_VEC8(1)
LAYERNORM_VEC8(2)
LAYERNORM_VEC8(4)
