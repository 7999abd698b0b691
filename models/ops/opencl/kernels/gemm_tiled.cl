// Portable tiled GEMM with a fused epilogue, y[M, N] = epi(x[M, K] . W[N, K]^T), for
// weight-only reduced precision: x stays fp32, W is read in its storage type and widened to
// fp32, accumulation is fp32. The host includes this body once per weight type with
//   GEMM_NAME              the kernel's name
//   WEIGHT_T               the weight's element type in global memory (half, char)
//   LOAD_WEIGHT(w, i)      element i of w as float (vload_half needs no cl_khr_fp16)
// A 16 x 16 work-group computes a 64 x 64 tile of y; each item a 4 x 4 block strided by 16
// (rows ty + 16 a, columns tx + 16 b), so local reads do not conflict and stores coalesce.
// K advances in steps of 16 through local tiles stored k-major, padded against bank conflicts.
// With scales (int8), y = scale[n] * acc before the bias.

__kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void GEMM_NAME(__global const float* x, __global const WEIGHT_T* w,
               __global const float* scales, int has_scales, __global const float* bias,
               int has_bias, int act, __global const float* residual, int has_residual,
               int M, int N, int K, __global float* y) {
  __local float xs[16][64 + 1];
  __local float ws[16][64 + 1];
  const int tx = get_local_id(0);
  const int ty = get_local_id(1);
  const int m0 = get_group_id(1) * 64;
  const int n0 = get_group_id(0) * 64;
  // Loader mapping: 16 consecutive items read 16 consecutive k of one row.
  const int load_k = tx;
  float acc[4][4];
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) acc[a][b] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += 16) {
    const int gk = k0 + load_k;
    for (int q = 0; q < 4; ++q) {
      const int r = ty + 16 * q;
      const int gm = m0 + r;
      const int gn = n0 + r;
      xs[load_k][r] = (gm < M && gk < K) ? x[(size_t)gm * K + gk] : 0.0f;
      ws[load_k][r] = (gn < N && gk < K) ? LOAD_WEIGHT(w, (size_t)gn * K + gk) : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int kk = 0; kk < 16; ++kk) {
      float xa[4], wb[4];
      for (int a = 0; a < 4; ++a) xa[a] = xs[kk][ty + 16 * a];
      for (int b = 0; b < 4; ++b) wb[b] = ws[kk][tx + 16 * b];
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) acc[a][b] = fma(xa[a], wb[b], acc[a][b]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  for (int a = 0; a < 4; ++a) {
    const int gm = m0 + ty + 16 * a;
    if (gm >= M) continue;
    for (int b = 0; b < 4; ++b) {
      const int gn = n0 + tx + 16 * b;
      if (gn >= N) continue;
      float v = acc[a][b];
      if (has_scales) v *= scales[gn];
      if (has_bias) v += bias[gn];
      v = apply_act(v, act);
      const size_t idx = (size_t)gm * N + gn;
      if (has_residual) v += residual[idx];
      y[idx] = v;
    }
  }
}
