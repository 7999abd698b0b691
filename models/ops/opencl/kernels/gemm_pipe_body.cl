// One variant of the pipelined GEMM (gemm_pipelined.cl; conv_taps > 0: an implicit 'same'
// convolution of conv_len-long sequences, see load_a_rows), included with PIPE_NAME, PIPE_BN
// (128 or 256), PIPE_THREADS (2 x PIPE_BN / 64 warps), PIPE_ELEM (ushort: half bits, float or
// char), PIPE_MMA (mma_f16, mma_tf32 or mma_s8), PIPE_FRAG(r) (what a fragment register becomes:
// itself, or rounded to tf32), PIPE_ACC (float, or int for s8), PIPE_EXTRA_PARAMS and
// PIPE_SCALE_ARGS (s8's column scales and x scale) defined.
#define PIPE_STAGE_CHUNKS (PIPE_A_CHUNKS + PIPE_BN * 8)
#define PIPE_BK (128 / (int)sizeof(PIPE_ELEM))  // K elements per tile: 128 bytes a row

__kernel __attribute__((reqd_work_group_size(PIPE_THREADS, 1, 1)))
void PIPE_NAME(__global const PIPE_ELEM* x, __global const PIPE_ELEM* w,
                        __global const float* bias, int has_bias, int act,
                        __global const float* residual, int has_residual, int M, int N, int K,
                        __global float* y, int conv_taps, int conv_len PIPE_EXTRA_PARAMS) {
  __local uint4 smem[PIPE_STAGES * PIPE_STAGE_CHUNKS];
  const int tid = get_local_id(0);
  const int lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int warps_n = PIPE_BN / 64;
  const int wm = (warp / warps_n) * 64, wn = (warp % warps_n) * 64;  // the warp's block
  const int m0 = get_group_id(1) * PIPE_BM, n0 = get_group_id(0) * PIPE_BN;
  const int k_tiles = (K + PIPE_BK - 1) / PIPE_BK;

  PIPE_ACC acc[4][8][4];
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int ni = 0; ni < 8; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0;

  // Prologue: the first PIPE_STAGES - 1 tiles in flight, one commit group each (empty groups
  // past K keep the count that wait_group relies on).
#pragma unroll
  for (int s = 0; s < PIPE_STAGES - 1; ++s) {
    if (s < k_tiles) {
      __local uint4* stage = smem + s * PIPE_STAGE_CHUNKS;
      load_a_rows(stage, (__global const uchar*)x, sizeof(PIPE_ELEM), m0, PIPE_BM, M, K, s * PIPE_BK,
                  conv_taps, conv_len, tid, PIPE_THREADS);
      load_rows(stage + PIPE_A_CHUNKS, (__global const uchar*)w, sizeof(PIPE_ELEM), n0, PIPE_BN, N, K, s * PIPE_BK, tid, PIPE_THREADS);
    }
    cp_async_commit();
  }

  // Lane -> the row and chunk it addresses for ldmatrix.x4: A's four 8 x 8 matrices are rows
  // 0-7 / 8-15 at k 0-7, then at k 8-15 (a0..a3 of m16n8k16); B's are columns n 0-7 at k 0-7
  // and 8-15 (b0, b1 of one n8 block), then n 8-15 (the next block's).
  const int a_row = wm + (lane & 15), a_chunk = lane >> 4;
  const int b_row = wn + ((lane >> 4) << 3) + (lane & 7), b_chunk = (lane >> 3) & 1;

  for (int kt = 0; kt < k_tiles; ++kt) {
    CP_ASYNC_WAIT(1);  // PIPE_STAGES - 2: tile kt has landed for this item
    barrier(CLK_LOCAL_MEM_FENCE);  // ... for every item, and the slot refilled next is free
    {
      const int next = kt + PIPE_STAGES - 1;
      if (next < k_tiles) {
        __local uint4* stage = smem + (next % PIPE_STAGES) * PIPE_STAGE_CHUNKS;
        load_a_rows(stage, (__global const uchar*)x, sizeof(PIPE_ELEM), m0, PIPE_BM, M, K,
                    next * PIPE_BK, conv_taps, conv_len, tid, PIPE_THREADS);
        load_rows(stage + PIPE_A_CHUNKS, (__global const uchar*)w, sizeof(PIPE_ELEM), n0, PIPE_BN, N, K, next * PIPE_BK, tid,
                  PIPE_THREADS);
      }
      cp_async_commit();
    }
    __local const uint4* as = smem + (kt % PIPE_STAGES) * PIPE_STAGE_CHUNKS;
    __local const uint4* bs = as + PIPE_A_CHUNKS;
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {  // k steps of 2 chunks: k16 (f16), k8 (tf32), k32 (s8)
      uint a[4][4], b[4][4];
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
      {
        ldmatrix_x4(as + swz(a_row + mi * 16, ks * 2 + a_chunk), a[mi]);
#pragma unroll
        for (int e = 0; e < 4; ++e) a[mi][e] = PIPE_FRAG(a[mi][e]);
      }
#pragma unroll
      for (int nj = 0; nj < 4; ++nj)
      {
        ldmatrix_x4(bs + swz(b_row + nj * 16, ks * 2 + b_chunk), b[nj]);
#pragma unroll
        for (int e = 0; e < 4; ++e) b[nj][e] = PIPE_FRAG(b[nj][e]);
      }
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < 8; ++ni)
          PIPE_MMA(acc[mi][ni], a[mi][0], a[mi][1], a[mi][2], a[mi][3], b[ni >> 1][(ni & 1) * 2],
                  b[ni >> 1][(ni & 1) * 2 + 1]);
    }
  }
  CP_ASYNC_WAIT(0);
  barrier(CLK_LOCAL_MEM_FENCE);  // every warp is done with the ring: it becomes the C tile
  {
    __local float* c = (__local float*)smem;
#pragma unroll
    for (int mi = 0; mi < 4; ++mi)
#pragma unroll
      for (int ni = 0; ni < 8; ++ni)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          vstore2((float2)((float)acc[mi][ni][2 * h], (float)acc[mi][ni][2 * h + 1]), 0,
                  c + (wm + mi * 16 + g + h * 8) * (PIPE_BN + 4) + wn + ni * 8 + 2 * t);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  epilogue_rows((__local const float*)smem, PIPE_BN, PIPE_THREADS, m0, n0, M, N, bias, has_bias,
                act, residual, has_residual, y, PIPE_SCALE_ARGS, tid);
}

#undef PIPE_STAGE_CHUNKS
#undef PIPE_BK
