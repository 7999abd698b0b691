// The tensor-core GEMM kernel, y[M, N] = epi(x[M, K] . W[N, K]^T), included once per variant
// after gemm_mma_nvidia.cl with
//   MMA_NAME            the kernel's name
//   WEIGHT_T            W's element type in global memory (float, half)
//   LOAD_WEIGHT(w, i)   element i of W as float
//   STORE_VALUE(v)      what a local tile holds for the fp32 value v (as uint bits)
//   WARP_TILE           warp_tile_tf32 or warp_tile_f16
// The epilogue (bias, activation, residual; residual may be y itself) is fused.

__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void MMA_NAME(__global const float* x, __global const WEIGHT_T* w, __global const float* bias,
              int has_bias, int act, __global const float* residual, int has_residual, int M,
              int N, int K, __global float* y) {
  __local uint xs[64 * MMA_PITCH];
  __local uint ws[64 * MMA_PITCH];
  const int tid = get_local_id(0);
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int g = lane >> 2;
  const int t = lane & 3;
  const int row0 = (warp >> 1) * 32;  // the warp's block inside the 64 x 64 tile
  const int col0 = (warp & 1) * 32;
  const int m0 = get_group_id(1) * 64;
  const int n0 = get_group_id(0) * 64;

  float acc[2][4][4];
  for (int mi = 0; mi < 2; ++mi)
    for (int ni = 0; ni < 4; ++ni)
      for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += MMA_BK) {
    // 64 rows x 32 k of x and of W; 32 consecutive items read one row's 32 consecutive k.
    for (int e = tid; e < 64 * MMA_BK; e += 128) {
      const int r = e >> 5;
      const int kk = e & 31;
      const int gk = k0 + kk;
      const int gm = m0 + r;
      const int gn = n0 + r;
      const float xv = (gm < M && gk < K) ? x[(size_t)gm * K + gk] : 0.0f;
      const float wv = (gn < N && gk < K) ? LOAD_WEIGHT(w, (size_t)gn * K + gk) : 0.0f;
      xs[r * MMA_PITCH + kk] = STORE_VALUE(xv);
      ws[r * MMA_PITCH + kk] = STORE_VALUE(wv);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    WARP_TILE(xs, ws, row0, col0, g, t, acc);
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  for (int mi = 0; mi < 2; ++mi) {
    for (int ni = 0; ni < 4; ++ni) {
      for (int e = 0; e < 4; ++e) {
        const int gm = m0 + row0 + mi * 16 + g + ((e & 2) ? 8 : 0);
        const int gn = n0 + col0 + ni * 8 + 2 * t + (e & 1);
        if (gm >= M || gn >= N) continue;
        float v = acc[mi][ni][e];
        if (has_bias) v += bias[gn];
        v = apply_act(v, act);
        const size_t idx = (size_t)gm * N + gn;
        if (has_residual) v += residual[idx];
        y[idx] = v;
      }
    }
  }
}
