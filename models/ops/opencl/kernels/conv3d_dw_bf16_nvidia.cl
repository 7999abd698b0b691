// conv3d's weight gradient in bf16 on the tensor cores (issue 27), NVIDIA only (inline PTX
// mma.sync, ldmatrix). Included in conv3d's bf16 program after conv3d_bf16_nvidia.cl (mma_bf16)
// and conv3d_bwd_igemm.cl's helpers' program mates (gemm_pipelined.cl: cp_async16, ldmatrix).
//
// The same split-reduction implicit GEMM as the tf32 kernels of conv3d_bwd_igemm.cl,
//   dW[co, n] = sum over p of dy[p, co] * X[p, n],  n = (tap, ci), p = (batch, oz, oy, ox),
// with x and dy already bf16 in global memory (channels-last, input and output channels
// multiples of 8): a 16-byte chunk is 8 channels, so each copy moves twice the tf32 kernel's
// elements and the gathered X tiles, which the tf32 kernel spent most of its time fetching
// through L1/L2 (4.37 ms for DynUNet's three 16-channel 64^3 gradients on an H100, 20 TFLOP/s:
// results/h100/gpu27-2026-11-28/final/check/), are half the bytes. Both operands lie in local
// memory with the reduction index p as the row, the layout they have in global memory; an mma
// needs A = dy^T and B = X with pairs of consecutive p in a register, which is what
// ldmatrix.trans gives from p-major 16-bit rows (one x4 for a 16 x 16 A block, one for two
// n8 blocks of B), where the tf32 kernel read and rounded every fragment word by word. Local
// rows are padded to an odd number of 16-byte chunks, so ldmatrix's eight row addresses of a
// phase land in eight different bank groups. fp32 accumulation; each work-group writes its
// slice's partial tile into its own slot and conv3d_dw_sum (conv3d_bwd_igemm.cl) adds the slots
// in slot order: the same bits every run.
//
// Rows past the slice are zero-filled in both operands (a NaN would reach every output); columns
// past dW's and dy channels past Cout are never copied and reach only outputs not stored.

#define DWB_BN 128        // dW columns (tap, channel) a work-group
#define DWB_BK 64         // rows p a stage: 4 k16 steps per barrier
#define DWB_THREADS 128   // 4 warps, each 32 columns and all BM rows
#define DWB_STAGES 3
#define DWB_LDB (DWB_BN + 8)                 // bf16 per local row of X: 17 chunks (odd)
#define DWB_X_ROWS (DWB_BK * 16 / DWB_THREADS)  // X chunks an item copies a stage (8)

#ifndef CONV_DWB_COMMON
#define CONV_DWB_COMMON
inline void ldmatrix_x4_trans_at(uint addr, uint* r) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}

inline void cp_async16_at(uint dst, __global const ushort* src, int bytes, int through_l1) {
  if (through_l1)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;"
                 :
                 : "r"(dst), "l"(src), "r"(bytes)
                 : "memory");
  else
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
                 :
                 : "r"(dst), "l"(src), "r"(bytes)
                 : "memory");
}
#endif

#define DWB_LDA (DWB_BM + 8)  // bf16 per local row of dy: BM / 8 + 1 chunks (odd)
#define DWB_MI (DWB_BM / 16)  // m16 blocks a warp
#define DWB_A_BYTES (DWB_BK * DWB_LDA * 2)
#define DWB_STAGE_BYTES (DWB_A_BYTES + DWB_BK * DWB_LDB * 2)

// One variant: DWB_NAME, DWB_BM (16, 32 or 64). x [N, D, H, W, C] and dy [P, Co] hold bf16 bits.
// Grid: (ceil(Nn / 128) x 128, ceil(Co / BM), slices); slice z covers rows
// [z slice_len, min(P, (z + 1) slice_len)), slice_len a multiple of DWB_BK.
__kernel __attribute__((reqd_work_group_size(DWB_THREADS, 1, 1)))
void DWB_NAME(__global const ushort* x, __global const ushort* dy, int P, int slice_len, int Co,
              int Nn, int C, int D, int H, int W, int ks, int stride, int pad, int OD, int OH,
              int OW, __global float* partial) {
  __local uint4 smem4[DWB_STAGES * DWB_STAGE_BYTES / 16];
  const uint smem = (uint)(size_t)smem4;
  const int tid = get_local_id(0), lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = get_group_id(0) * DWB_BN, m0 = get_group_id(1) * DWB_BM;
  const int slice = get_group_id(2);
  const int p_begin = slice * slice_len, p_end = min(P, p_begin + slice_len);
  const int k_tiles = (p_end - p_begin + DWB_BK - 1) / DWB_BK;

  // This item's X chunk column: channels ci .. ci + 7 of one tap.
  const int xc = tid & 15;
  const int xn = n0 + xc * 8, xtap = xn / C, xci = xn - xtap * C;
  const int xkz = xtap / (ks * ks), xkyx = xtap - xkz * ks * ks;
  const int xky = xkyx / ks, xkx = xkyx - xky * ks;
  const int xoff = ((xkz * H + xky) * W + xkx) * C + xci;
  const bool xin = xn < Nn;
  // Its X rows r = (tid >> 4) + 8 i of each stage: the output voxel of row p, advanced by DWB_BK
  // rows a stage (carries instead of divisions in the loop).
  int vb[DWB_X_ROWS], vz[DWB_X_ROWS], vy[DWB_X_ROWS], vx[DWB_X_ROWS];
  const int plane = OH * OW, V = OD * plane;
#pragma unroll
  for (int i = 0; i < DWB_X_ROWS; ++i) {
    const int p = p_begin + (tid >> 4) + 8 * i;
    vb[i] = p / V;
    const int v = p - vb[i] * V;
    vz[i] = v / plane;
    const int rest = v - vz[i] * plane;
    vy[i] = rest / OW;
    vx[i] = rest - vy[i] * OW;
  }

  float acc[DWB_MI][4][4];
#pragma unroll
  for (int mi = 0; mi < DWB_MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < 4; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0.0f;

  // ldmatrix row addresses (bytes within a stage), fixed for the whole loop. Lane l feeds row
  // l & 7 of matrix j = l >> 3.
  //   A (dy^T, 16 x 16 per mi): matrix j is p rows 8 (j >> 1) .. + 7, channels 8 (j & 1) .. + 7
  //     of the block: after .trans, registers a0..a3 of m16n8k16 (rows g / g + 8, k 2t / 2t + 8).
  //   B (X, two n8 blocks per x4): matrix j is p rows 8 (j & 1) .. + 7, columns 8 (j >> 1) .. + 7:
  //     b0, b1 of the first block, then of the second.
  const int lj = lane >> 3, lr = lane & 7;
  const uint a_lane = ((lr + 8 * (lj >> 1)) * DWB_LDA + 8 * (lj & 1)) * 2;
  const int wn = warp * 32;
  const uint b_lane = DWB_A_BYTES + ((lr + 8 * (lj & 1)) * DWB_LDB + wn + 8 * (lj >> 1)) * 2;

  // One loop: iteration kt copies stage kt + DWB_STAGES - 1 into its ring slot (one commit group
  // whether or not that stage exists: the count wait_group relies on) and, from kt = 0 on,
  // multiplies stage kt. The voxel state moves on only for stages that are copied, in order.
  for (int kt = 1 - DWB_STAGES; kt < k_tiles; ++kt) {
    if (kt >= 0) {
      CP_ASYNC_WAIT(1);              // DWB_STAGES - 2: stage kt has landed for this item
      barrier(CLK_LOCAL_MEM_FENCE);  // ... for every item, and the slot refilled next is free
    }
    const int lt = kt + DWB_STAGES - 1;
    if (lt < k_tiles) {
      const uint as = smem + (lt % DWB_STAGES) * DWB_STAGE_BYTES;
      const uint bs = as + DWB_A_BYTES;
      const int p0 = p_begin + lt * DWB_BK;
#pragma unroll
      for (int qi = 0; qi < (DWB_BK * DWB_BM / 8 + DWB_THREADS - 1) / DWB_THREADS; ++qi) {
        const int q = tid + qi * DWB_THREADS;
        const int r = q / (DWB_BM / 8), c8 = (q - r * (DWB_BM / 8)) * 8, p = p0 + r;
        const bool in = p < p_end && m0 + c8 < Co;
        if (r < DWB_BK && m0 + c8 < Co)
          cp_async16_at(as + (r * DWB_LDA + c8) * 2, in ? dy + (size_t)p * Co + m0 + c8 : dy,
                        in ? 16 : 0, 0);
      }
#pragma unroll
      for (int i = 0; i < DWB_X_ROWS; ++i) {
        const int r = (tid >> 4) + 8 * i;
        const bool row_in = p0 + r < p_end;
        const int iz = vz[i] * stride - pad, iy = vy[i] * stride - pad, ix = vx[i] * stride - pad;
        const int base = (((vb[i] * D + iz) * H + iy) * W + ix) * C;
        const int z = iz + xkz, y = iy + xky, xx = ix + xkx;
        const bool in =
            row_in && xin && (uint)z < (uint)D && (uint)y < (uint)H && (uint)xx < (uint)W;
        if (xin)
          cp_async16_at(bs + (r * DWB_LDB + xc * 8) * 2, in ? x + (size_t)(base + xoff) : x,
                        in ? 16 : 0, 1);
        vx[i] += DWB_BK;
        while (vx[i] >= OW) {
          vx[i] -= OW;
          if (++vy[i] == OH) {
            vy[i] = 0;
            if (++vz[i] == OD) vz[i] = 0, ++vb[i];
          }
        }
      }
    }
    cp_async_commit();
    // A warp whose 32 columns all lie past dW's (narrow gradients) has nothing to multiply; the
    // branch is uniform over the warp.
    if (kt < 0 || n0 + wn >= Nn) continue;
    const uint as = smem + (kt % DWB_STAGES) * DWB_STAGE_BYTES;
#pragma unroll
    for (int kk = 0; kk < DWB_BK; kk += 16) {
      uint a[DWB_MI][4], b[4][2];
#pragma unroll
      for (int mi = 0; mi < DWB_MI; ++mi)
        ldmatrix_x4_trans_at(as + a_lane + (kk * DWB_LDA + mi * 16) * 2, a[mi]);
#pragma unroll
      for (int nj = 0; nj < 2; ++nj) {
        uint r[4];
        ldmatrix_x4_trans_at(as + b_lane + (kk * DWB_LDB + nj * 16) * 2, r);
        b[2 * nj][0] = r[0], b[2 * nj][1] = r[1], b[2 * nj + 1][0] = r[2], b[2 * nj + 1][1] = r[3];
      }
#pragma unroll
      for (int mi = 0; mi < DWB_MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni)
          mma_bf16(acc[mi][ni], a[mi][0], a[mi][1], a[mi][2], a[mi][3], b[ni][0], b[ni][1]);
    }
  }
  CP_ASYNC_WAIT(0);

  // The slice's partial tile into its own slot: partial[slice][co][n].
  __global float* slot = partial + (size_t)slice * Co * Nn;
#pragma unroll
  for (int mi = 0; mi < DWB_MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < 4; ++ni)
      conv_dw_store_fragment(
          slot, Co, Nn, m0 + mi * 16 + g, n0 + wn + ni * 8 + 2 * t,
          (float4)(acc[mi][ni][0], acc[mi][ni][1], acc[mi][ni][2], acc[mi][ni][3]));
}

#undef DWB_NAME
#undef DWB_BM
#undef DWB_LDA
#undef DWB_MI
#undef DWB_A_BYTES
#undef DWB_STAGE_BYTES
