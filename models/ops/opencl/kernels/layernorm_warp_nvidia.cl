// y = LayerNorm(x + residual) (x alone where has_residual is 0) on NVIDIA, for rows whose width
// is a multiple of 8 and at most 8 x 32 x 4: a warp a row, LNW_ROWS rows a work-group, lane
// `lane` holding columns 8 (lane + 32 j) .. +7 in registers (16-byte loads), the row's sum and
// then its centred sum of squares (two exact passes over registers) reduced by shfl.sync
// butterflies (shfl_xor, attention_mma_nvidia.cl): no local memory and no barrier.
//
// Why a kernel of its own: OpenCL C 1.2 on NVIDIA has no sub-group reductions, so the portable
// kernel (layernorm_rows_vec8_*, norms.cl) merges its lanes' partials through local memory behind
// a barrier, and took 0.09 ms a call on Geneformer full's 65,536 x 256 rows in f16 and in fp32
// alike (results/h200/lead32-2026-11-29/gf), where the f16 bytes take 0.02 ms: the time did not
// follow the bytes. CLBlast has no LayerNorm. Statistics stay fp32; f16 tensors are read and
// written as half bits (`halves`, ACT_HALF_*).
#define LNW_ROWS 8

inline float warp_sum(float v) {
#pragma unroll
  for (int mask = 16; mask > 0; mask >>= 1) v += shfl_xor(v, mask);
  return v;
}

// `chunks` (8-column groups a lane holds) is a constant of each kernel below, so registers hold
// the row and no more.
// layernorm_store8's values, stored as it stores them and, where y16, as halves too (an f16
// copy for the next product, f16_activations.cpp; vstore_half8 rounds to nearest even).
inline void layernorm_store8_copy(const float* v, float mean, float inv_std,
                                  __global const float* gamma, __global const float* beta, int c,
                                  __global float* y, size_t i, int in_half, __global half* y16,
                                  int has_y16) {
  float o[8];
  layernorm_values8(v, mean, inv_std, gamma, beta, c, o);
  act_store8(y, i, o, in_half);
  if (has_y16)
    vstore_half8((float8)(o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7]), 0, y16 + i);
}

inline void layernorm_warp_rows(__global const float* x, __global const float* residual,
                                int has_residual, __global const float* gamma,
                                __global const float* beta, float eps, int cols, int rows,
                                __global float* y, int halves, __global half* y16, int has_y16,
                                const int chunks) {
  const int lane = get_local_id(0) % 32;
  const int row = get_group_id(0) * LNW_ROWS + get_local_id(0) / 32;
  if (row >= rows) return;  // the whole warp: a row is a warp's, and no barrier follows
  const int hx = halves & ACT_HALF_X, hr = halves & ACT_HALF_RESIDUAL, hy = halves & ACT_HALF_Y;
  const size_t base = (size_t)row * cols;
  const int groups8 = cols / 8;
  float v[4][8];
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < chunks; ++j) {
    const int g = lane + 32 * j, in = g < groups8;
    act_load8(x, base + 8 * g, hx, in, v[j]);
    if (has_residual && in) {
      float t[8];
      act_load8(residual, base + 8 * g, hr, 1, t);
#pragma unroll
      for (int k = 0; k < 8; ++k) v[j][k] += t[k];
    }
#pragma unroll
    for (int k = 0; k < 8; ++k) sum += v[j][k];
  }
  const float mean = warp_sum(sum) / cols;
  float m2 = 0.0f;
#pragma unroll
  for (int j = 0; j < chunks; ++j) {
    if (lane + 32 * j < groups8) {
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const float d = v[j][k] - mean;
        m2 += d * d;
      }
    }
  }
  const float inv_std = 1.0f / sqrt(warp_sum(m2) / cols + eps);
#pragma unroll
  for (int j = 0; j < chunks; ++j) {
    const int g = lane + 32 * j;
    if (g >= groups8) continue;
    layernorm_store8_copy(v[j], mean, inv_std, gamma, beta, 8 * g, y, base + 8 * g, hy, y16,
                          has_y16);
  }
}

#define LAYERNORM_WARP(CHUNKS)                                                                   \
  __kernel __attribute__((reqd_work_group_size(32 * LNW_ROWS, 1, 1))) void                     \
      layernorm_rows_warp_##CHUNKS(__global const float* x, __global const float* residual,    \
                                   int has_residual, __global const float* gamma,             \
                                   __global const float* beta, float eps, int cols, int rows, \
                                   __global float* y, int halves, __global half* y16,         \
                                   int has_y16) {                                             \
    layernorm_warp_rows(x, residual, has_residual, gamma, beta, eps, cols, rows, y, halves,    \
                        y16, has_y16, CHUNKS);                                                 \
  }
LAYERNORM_WARP(1)
LAYERNORM_WARP(2)
LAYERNORM_WARP(4)
