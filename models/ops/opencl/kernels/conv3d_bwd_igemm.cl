// conv3d's backward passes on the tensor cores (issue 27), NVIDIA only (inline PTX mma.sync).
// Included after gemm_mma_nvidia.cl, gemm_pipelined.cl and conv3d_igemm.cl.
//
// Why written here: no library runs a convolution's backward passes on NVIDIA's tensor cores from
// OpenCL (cuDNN and CUTLASS are CUDA; CLBlast has no tensor-core path), and DynUNet full's
// backward passes took 96% of its channels-last training step through vol2col/col2vol and the
// batched mma GEMM (results/h100/dynunet-igemm-2026-11-28/): each column buffer written and read
// back, and the weight gradient's GEMM (a 16-64 row output reduced over millions of rows) left
// most of the GPU idle, as the tensor-core precisions were not split along the reduction.
//
// Weight gradient, tf32, channels-last, as an implicit GEMM with a split reduction:
//   dW[co, n] = sum over p of dy[p, co] * X[p, n],  n = (tap, ci), p = (batch, oz, oy, ox),
// where X[p, (tap, ci)] = x[batch, oz s - pad + kz, oy s - pad + ky, ox s - pad + kx, ci] (zero
// in the padding) is gathered straight from x, never written. A work-group owns a BM x 128 tile
// of dW (BM = out channels rounded up to 16, 32 or 64) and one slice of the rows p; per K step
// of 32 rows it copies dy's rows (contiguous: 32 x Cout floats) and X's gathered rows (a chunk
// of 4 consecutive channels of one tap per 16-byte copy, zero-filled outside the volume) into
// a 3-stage cp.async ring, both with the reduction index p as the row: the layout in which
// they lie in memory. The mma takes A = dy^T and B = X, so the fragments are read from local
// memory word by word (ldmatrix's transpose works on 16-bit elements only); rows are padded to
// 8 words mod 32 so that a warp's 32 fragment reads hit 32 banks. Columns past dW's (n >= taps
// C) and dy columns past Cout are never copied: whatever local memory holds there reaches only
// output columns / rows that are not stored, while rows past the slice are zero-filled in both
// operands (a NaN there would reach every output). DynUNet's single-channel gradients (27 or 1
// columns of a 128-wide tile) copy 4.7x to 128x fewer words that way. Each work-group writes its
// slice's partial tile into its own slot; conv3d_dw_sum adds the slots in slot order, so the
// result repeats bit for bit whatever the scheduling.

#define DW_BN 128                 // dW columns (tap, channel) a work-group
#define DW_BK 32                  // rows p a K step
#define DW_THREADS 128            // 4 warps, each 32 columns and all BM rows
#define DW_STAGES 3
#define DW_LDA (DW_BM + 8)        // floats per local row of dy (8 mod 32: conflict-free)
#define DW_LDB (DW_BN + 8)        // ... of X
#define DW_MI (DW_BM / 16)        // m16 blocks a warp
#define DW_NI 4                   // n8 blocks a warp
#define DW_A_FLOATS (DW_BK * DW_LDA)
#define DW_STAGE_FLOATS (DW_A_FLOATS + DW_BK * DW_LDB)
#define DW_X_ROWS (DW_BK * 32 / DW_THREADS)  // X rows an item copies a step (8): chunk column tid & 31

#ifndef CONV_DW_COMMON
#define CONV_DW_COMMON
inline void cp_async16_ca_at(__local float* dst, __global const float* src, int bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;"
               :
               : "r"((uint)(size_t)dst), "l"(src), "r"(bytes)
               : "memory");
}

inline void cp_async4_ca_at(__local float* dst, __global const float* src, int bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;"
               :
               : "r"((uint)(size_t)dst), "l"(src), "r"(bytes)
               : "memory");
}

// dw[o, ci, t] (the weight's [out, in, taps] layout) = the sum of partial[slot][o][t C + ci]
// over the slots, in slot order: the deterministic end of the split reduction. One item per
// element; consecutive items read consecutive partial words.
__kernel void conv3d_dw_sum(__global const float* partial, int slots, int Co, int C, int taps,
                            __global float* dw) {
  const int i = get_global_id(0), total = Co * C * taps;
  if (i >= total) return;
  const int o = i / (taps * C), n = i - o * taps * C, t = n / C, ci = n - t * C;
  float s = 0.0f;
  for (int sl = 0; sl < slots; ++sl) s += partial[(size_t)sl * total + i];
  dw[((size_t)o * C + ci) * taps + t] = s;
}

// dbias's split reduction (channels-last dy [rows, Co]): work-group (c, g) sums channel c over
// rows [g slice_len, (g + 1) slice_len) with a fixed tree (group_sum) into partial[g][c];
// conv3d_dw_sum (C = taps = 1) then adds the slices in order. conv3d_bias_grad (conv3d.cl) gives
// a channel one work-group: DynUNet's output convolution (one channel over 2M rows) took 0.78 ms
// of its step on an H100 (results/h100/conv-bwd-2026-11-28/call2/).
__kernel void conv3d_dbias_slices(__global const float* dy, int Co, int rows, int slice_len,
                                  __global float* partial) {
  __local float scratch[REDUCE_WG];
  const int c = get_group_id(0), g = get_group_id(1), lid = get_local_id(0);
  const int end = min(rows, (g + 1) * slice_len);
  float s = 0.0f;
  for (int r = g * slice_len + lid; r < end; r += REDUCE_WG) s += dy[(size_t)r * Co + c];
  s = group_sum(s, scratch);
  if (lid == 0) partial[(size_t)g * Co + c] = s;
}

// dy [N, OD, OH, OW, Co] spread onto the stride-1 grid of a transposed convolution (or any
// [N, OD, OH, OW, Co] onto a grid s times finer, as the 1^3 data gradient does):
// out [N, UD, UH, UW, Co] holds dy[n, z/s, y/s, x/s, :] where s divides z, y and x (and the
// quotient is inside dy), zeros elsewhere. conv3d's data gradient for stride s > 1 is then a
// stride-1 convolution of `out` (conv3d_bwd_igemm.cpp). One item per element of out.
__kernel void conv3d_dy_dilate(__global const float* dy, int Co, int OD, int OH, int OW, int s,
                               int UD, int UH, int UW, int total, __global float* out) {
  const int i = get_global_id(0);
  if (i >= total) return;
  int r = i / Co;
  const int co = i - r * Co;
  const int x = r % UW;
  r /= UW;
  const int y = r % UH;
  r /= UH;
  const int z = r % UD, n = r / UD;
  const int oz = z / s, oy = y / s, ox = x / s;
  const bool hit = z == oz * s && y == oy * s && x == ox * s && oz < OD && oy < OH && ox < OW;
  out[i] = hit ? dy[((((size_t)n * OD + oz) * OH + oy) * OW + ox) * Co + co] : 0.0f;
}

// conv3d_dy_dilate for Co a multiple of 4, four channels an item on a 3-D grid
// (round_up(Co / 4 x UW, 256), UH, N x UD): one division an item, not five an element. The
// scalar kernel took 477 us to spread 64^3's dy, 4.8x the f32_to_bf16 of the same output
// (results/h200/dyn27-2026-11-28/check/timeline-new.trace.json.gz); vload4/vstore4 ask only
// float alignment. STAGEBENCH_CONV_DILATE=scalar keeps the kernel above.
__kernel void conv3d_dy_dilate4(__global const float* dy, int Co4, int OD, int OH, int OW, int s,
                                int UD, int UH, int UW, __global float* out) {
  const int i = get_global_id(0), y = get_global_id(1), nz = get_global_id(2);
  if (i >= Co4 * UW) return;
  size_t at;
  const float4 v = conv3d_dy_spread4(dy, Co4, OD, OH, OW, s, UD, UH, UW, i, y, nz, &at);
  vstore4(v, 0, out + at);
}

// w [out, C, taps] -> [C, k_pad] with K in (tap, out) order and the taps reversed: the weight of
// the stride-1 convolution that computes conv3d's data gradient (in and out channels swapped,
// the kernel flipped in all three axes), in the implicit GEMM's order; zero past taps x out.
__kernel void conv3d_weight_flip_taps_first(__global const float* w, int Co, int C, int taps,
                                            int k_pad, int n, __global float* out) {
  const int i = get_global_id(0);
  if (i >= n) return;
  out[i] = conv_weight_flip_at(w, Co, C, taps, k_pad, i);
}

// The data gradient of a 3^3, stride-2, padding-1 convolution by phases (STAGEBENCH_CONV_DILATE
// unset or =phases): dx's voxels of one parity (pd, ph, pw) each take dy at 1 or 2 offsets an
// axis (even: dy[i] . w[1]; odd: dy[i] . w[2] + dy[i + 1] . w[0]), so dx is a stride-1 2^3
// convolution of dy itself (padding 1; output plane m is dx's phase row i = m - 1) into 8 C
// channels, one block of C per parity, with the taps that do not apply zero. That multiplies
// 64/27 of the useful products instead of spreading dy onto x's grid, 8x its size, and
// multiplying 8x (the spread's GEMM was DynUNet's largest kernel, 0.65 ms, and the spread 0.12:
// results/h200/gpu27b-2026-11-28/call4/timeline-final.trace.json.gz). No library does this
// from OpenCL on NVIDIA's tensor cores (see the top of this file); the GEMM is
// conv3d_igemm_permuted's, these two kernels are its weight and the scatter of its output.
// w [Co, C, 27] -> [8 C, k_pad], row (parity, c), K in (2^3 tap, co) order, zero past 8 Co.
__kernel void conv3d_weight_phases(__global const float* w, int Co, int C, int k_pad, int n,
                                   __global float* out) {
  const int i = get_global_id(0);
  if (i >= n) return;
  out[i] = conv_weight_phases_at(w, Co, C, k_pad, i);
}

// y [N, PD, PH, PW, 8 C] (the phases' convolution) -> dx [N, D, H, W, C]:
// dx[n, 2i + pd, 2j + ph, 2k + pw, c] = y[n, i + 1, j + 1, k + 1, ((pd 2 + ph) 2 + pw) C + c].
// Grid (round_up(W C, 256), H, N D): an item an element of dx, stored contiguously.
__kernel void conv3d_phase_scatter(__global const float* y, int C, int PD, int PH, int PW, int D,
                                   int H, int W, __global float* dx) {
  const int g = get_global_id(0), h = get_global_id(1), z = get_global_id(2);
  if (g >= W * C) return;
  const int x = g / C, c = g - x * C, n = z / D, d = z - n * D;
  const int parity = ((d & 1) * 2 + (h & 1)) * 2 + (x & 1);
  const size_t at =
      ((((size_t)n * PD + (d >> 1) + 1) * PH + (h >> 1) + 1) * PW + (x >> 1) + 1) * 8 * C +
      parity * C + c;
  dx[(((size_t)n * D + d) * H + h) * W * C + g] = y[at];
}
#endif

// One variant: DW_NAME, DW_BM (16, 32 or 64), DW_WORDS_X (1: input channels not a multiple of
// 4, X gathered word by word), DW_WORDS_DY (1: out channels not a multiple of 4).
// Grid: (ceil(N / 128) x 128, ceil(Co / BM), slices); slice z covers rows
// [z slice_len, min(P, (z + 1) slice_len)), slice_len a multiple of DW_BK.
__kernel __attribute__((reqd_work_group_size(DW_THREADS, 1, 1)))
void DW_NAME(__global const float* x, __global const float* dy, int P, int slice_len, int Co,
             int Nn, int C, int D, int H, int W, int ks, int stride, int pad, int OD, int OH,
             int OW, __global float* partial) {
  __local float4 smem4[DW_STAGES * DW_STAGE_FLOATS / 4];
  __local float* smem = (__local float*)smem4;
  const int tid = get_local_id(0), lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = get_group_id(0) * DW_BN, m0 = get_group_id(1) * DW_BM;
  const int slice = get_group_id(2);
  const int p_begin = slice * slice_len, p_end = min(P, p_begin + slice_len);
  const int k_tiles = (p_end - p_begin + DW_BK - 1) / DW_BK;

  // This item's X chunk column: channels ci .. ci + 3 of one tap (words: each word its own).
  const int xc = tid & 31;
#if DW_WORDS_X
  int xoff[4], xkz[4], xky[4], xkx[4];
  bool xin[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const int n = n0 + xc * 4 + j, tap = n / C, ci = n - tap * C;
    xkz[j] = tap / (ks * ks);
    const int kyx = tap - xkz[j] * ks * ks;
    xky[j] = kyx / ks;
    xkx[j] = kyx - xky[j] * ks;
    xoff[j] = ((xkz[j] * H + xky[j]) * W + xkx[j]) * C + ci;
    xin[j] = n < Nn;
  }
#else
  const int xn = n0 + xc * 4, xtap = xn / C, xci = xn - xtap * C;
  const int xkz = xtap / (ks * ks), xkyx = xtap - xkz * ks * ks;
  const int xky = xkyx / ks, xkx = xkyx - xky * ks;
  const int xoff = ((xkz * H + xky) * W + xkx) * C + xci;
  const bool xin = xn < Nn;
#endif
  // Its X rows r = (tid >> 5) + 4 i of each step: the output voxel of row p, advanced by DW_BK
  // rows a step (carries instead of divisions in the loop).
  int vb[DW_X_ROWS], vz[DW_X_ROWS], vy[DW_X_ROWS], vx[DW_X_ROWS];
  const int plane = OH * OW, V = OD * plane;
#pragma unroll
  for (int i = 0; i < DW_X_ROWS; ++i) {
    const int p = p_begin + (tid >> 5) + 4 * i;
    vb[i] = p / V;
    const int v = p - vb[i] * V;
    vz[i] = v / plane;
    const int rest = v - vz[i] * plane;
    vy[i] = rest / OW;
    vx[i] = rest - vy[i] * OW;
  }

  float acc[DW_MI][DW_NI][4];
#pragma unroll
  for (int mi = 0; mi < DW_MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < DW_NI; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0.0f;

  // One loop: iteration kt copies step kt + DW_STAGES - 1 into its ring slot (one commit group
  // whether or not that step exists: the count wait_group relies on) and, from kt = 0 on,
  // multiplies step kt. The voxel state moves on only for steps that are copied, in order.
  const int wn = warp * 32;
  for (int kt = 1 - DW_STAGES; kt < k_tiles; ++kt) {
    if (kt >= 0) {
      CP_ASYNC_WAIT(1);              // DW_STAGES - 2: step kt has landed for this item
      barrier(CLK_LOCAL_MEM_FENCE);  // ... for every item, and the slot refilled next is free
    }
    const int lt = kt + DW_STAGES - 1;
    if (lt < k_tiles) {
      __local float* as = smem + (lt % DW_STAGES) * DW_STAGE_FLOATS;
      __local float* bs = as + DW_A_FLOATS;
      const int p0 = p_begin + lt * DW_BK;
#pragma unroll
      for (int qi = 0; qi < DW_BK * DW_BM / 4 / DW_THREADS; ++qi) {
        const int q = tid + qi * DW_THREADS;
        const int r = q / (DW_BM / 4), c4 = (q - r * (DW_BM / 4)) * 4, p = p0 + r;
#if DW_WORDS_DY
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const bool in = p < p_end && m0 + c4 + j < Co;
          if (m0 + c4 + j < Co)
            cp_async4_ca_at(as + r * DW_LDA + c4 + j, in ? dy + (size_t)p * Co + m0 + c4 + j : dy,
                            in ? 4 : 0);
        }
#else
        const bool in = p < p_end && m0 + c4 < Co;
        if (m0 + c4 < Co)
          cp_async16_ca_at(as + r * DW_LDA + c4, in ? dy + (size_t)p * Co + m0 + c4 : dy,
                           in ? 16 : 0);
#endif
      }
#pragma unroll
      for (int i = 0; i < DW_X_ROWS; ++i) {
        const int r = (tid >> 5) + 4 * i;
        const bool row_in = p0 + r < p_end;
        const int iz = vz[i] * stride - pad, iy = vy[i] * stride - pad, ix = vx[i] * stride - pad;
        const int base = (((vb[i] * D + iz) * H + iy) * W + ix) * C;
#if DW_WORDS_X
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const int z = iz + xkz[j], y = iy + xky[j], xx = ix + xkx[j];
          const bool in = row_in && xin[j] && (uint)z < (uint)D && (uint)y < (uint)H &&
                          (uint)xx < (uint)W;
          if (xin[j])
            cp_async4_ca_at(bs + r * DW_LDB + xc * 4 + j, in ? x + (size_t)(base + xoff[j]) : x,
                            in ? 4 : 0);
        }
#else
        const int z = iz + xkz, y = iy + xky, xx = ix + xkx;
        const bool in =
            row_in && xin && (uint)z < (uint)D && (uint)y < (uint)H && (uint)xx < (uint)W;
        if (xin)
          cp_async16_ca_at(bs + r * DW_LDB + xc * 4, in ? x + (size_t)(base + xoff) : x,
                           in ? 16 : 0);
#endif
        vx[i] += DW_BK;
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
    // A warp whose 32 columns all lie past dW's (narrow gradients: 1 to 27 columns) has nothing
    // to multiply; the branch is uniform over the warp.
    if (kt < 0 || n0 + wn >= Nn) continue;
    __local const float* as = smem + (kt % DW_STAGES) * DW_STAGE_FLOATS;
    __local const float* bs = as + DW_A_FLOATS;
#pragma unroll
    for (int kk = 0; kk < DW_BK; kk += 8) {
      uint a[DW_MI][4], b[DW_NI][2];
#pragma unroll
      for (int mi = 0; mi < DW_MI; ++mi) {
        __local const float* r0 = as + (kk + t) * DW_LDA + mi * 16 + g;
        __local const float* r1 = r0 + 4 * DW_LDA;
        a[mi][0] = to_tf32(r0[0]);
        a[mi][1] = to_tf32(r0[8]);
        a[mi][2] = to_tf32(r1[0]);
        a[mi][3] = to_tf32(r1[8]);
      }
#pragma unroll
      for (int ni = 0; ni < DW_NI; ++ni) {
        __local const float* c0 = bs + (kk + t) * DW_LDB + wn + ni * 8 + g;
        b[ni][0] = to_tf32(c0[0]);
        b[ni][1] = to_tf32(c0[4 * DW_LDB]);
      }
#pragma unroll
      for (int mi = 0; mi < DW_MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < DW_NI; ++ni)
          mma_tf32(acc[mi][ni], a[mi][0], a[mi][1], a[mi][2], a[mi][3], b[ni][0], b[ni][1]);
    }
  }
  CP_ASYNC_WAIT(0);

  // The slice's partial tile into its own slot: partial[slice][co][n].
  __global float* slot = partial + (size_t)slice * Co * Nn;
#pragma unroll
  for (int mi = 0; mi < DW_MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < DW_NI; ++ni)
      conv_dw_store_fragment(
          slot, Co, Nn, m0 + mi * 16 + g, n0 + wn + ni * 8 + 2 * t,
          (float4)(acc[mi][ni][0], acc[mi][ni][1], acc[mi][ni][2], acc[mi][ni][3]));
}

#undef DW_NAME
#undef DW_BM
#undef DW_WORDS_X
#undef DW_WORDS_DY
#undef DW_LDA
#undef DW_MI
#undef DW_A_FLOATS
#undef DW_STAGE_FLOATS
