// The tensor-core GEMM kernel, y[M, N] = epi(x[M, K] . W[N, K]^T), included once per variant
// after gemm_mma_nvidia.cl with
//   MMA_NAME            the kernel's name
//   WEIGHT_T            W's element type in global memory (float, half)
//   LOAD_WEIGHT(w, i)   element i of W as float
//   STORE_X(tile, r, kk, v), STORE_W(...)  store fp32 v as element (r, kk) of the x / W tile
//   WARP_TILE           warp_tile_tf32, warp_tile_f16 or warp_tile_s8
//   ACC_T               accumulator type: float, or int for int8 (exact to the end)
//   EXTRA_PARAMS        further kernel parameters (empty, or the int8 scales)
//   SCALE_ACC(v, n)     the accumulator of column n as the product's value (int8 dequantizes)
// The next K tile is fetched into registers while the warps multiply the current one. The
// epilogue (bias, activation, residual; residual may be y itself) is fused.

#define MMA_LOADS (MMA_BM * MMA_BK / MMA_THREADS)  // per item and operand (MMA_BM == MMA_BN)

__kernel __attribute__((reqd_work_group_size(MMA_THREADS, 1, 1)))
void MMA_NAME(__global const float* x, __global const WEIGHT_T* w, __global const float* bias,
              int has_bias, int act, __global const float* residual, int has_residual, int M,
              int N, int K, __global float* y EXTRA_PARAMS) {
  __local uint xs[MMA_BM * MMA_PITCH];
  __local uint ws[MMA_BN * MMA_PITCH];
  const int tid = get_local_id(0);
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int g = lane >> 2;
  const int t = lane & 3;
  const int row0 = (warp >> 2) * (MMA_MI * 16);  // the warp's block inside the tile
  const int col0 = (warp & 3) * 32;
  const int m0 = get_group_id(1) * MMA_BM;
  const int n0 = get_group_id(0) * MMA_BN;

  ACC_T acc[MMA_MI][4][4];
#pragma unroll
  for (int mi = 0; mi < MMA_MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < 4; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0;

  // Item tid moves elements tid + q * MMA_THREADS of each 128 x 32 tile: 32 consecutive items
  // read one row's 32 consecutive k.
  float xr[MMA_LOADS], wr[MMA_LOADS];
#define MMA_FETCH(k0)                                                           \
  for (int q = 0; q < MMA_LOADS; ++q) {                                         \
    const int e = tid + q * MMA_THREADS;                                        \
    const int r = e >> 5;                                                       \
    const int gk = (k0) + (e & 31);                                             \
    xr[q] = (m0 + r < M && gk < K) ? x[(size_t)(m0 + r) * K + gk] : 0.0f;       \
    wr[q] = (n0 + r < N && gk < K) ? LOAD_WEIGHT(w, (size_t)(n0 + r) * K + gk)  \
                                   : 0.0f;                                      \
  }
  MMA_FETCH(0)
  for (int k0 = 0; k0 < K; k0 += MMA_BK) {
#pragma unroll
    for (int q = 0; q < MMA_LOADS; ++q) {
      const int e = tid + q * MMA_THREADS;
      STORE_X(xs, e >> 5, e & 31, xr[q]);
      STORE_W(ws, e >> 5, e & 31, wr[q]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (k0 + MMA_BK < K) {
      MMA_FETCH(k0 + MMA_BK)
    }
    WARP_TILE(xs, ws, row0, col0, g, t, acc);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#undef MMA_FETCH

#pragma unroll
  for (int mi = 0; mi < MMA_MI; ++mi) {
#pragma unroll
    for (int ni = 0; ni < 4; ++ni) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int gm = m0 + row0 + mi * 16 + g + ((e & 2) ? 8 : 0);
        const int gn = n0 + col0 + ni * 8 + 2 * t + (e & 1);
        if (gm >= M || gn >= N) continue;
        float v = SCALE_ACC((float)acc[mi][ni][e], gn);
        if (has_bias) v += bias[gn];
        v = apply_act(v, act);
        const size_t idx = (size_t)gm * N + gn;
        if (has_residual) v += residual[idx];
        y[idx] = v;
      }
    }
  }
}
#undef MMA_LOADS
