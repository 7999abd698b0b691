// conv3d's forward pass for 3^3, stride-1, padding-1 calls of 16 output channels (issue 27),
// NVIDIA only (inline PTX mma.sync, ldmatrix, cp.async). A program of its own after conv3d's
// common part and conv3d_bf16_nvidia.cl (mma_bf16), built only where a call takes it, so that a
// driver rejecting it fails this path alone (conv3d_igemm.cpp then keeps the GEMM tiles).
//
// Why not conv3d_igemm_bf16_128x16: with N = 16 output channels each gathered byte of A =
// im2col(x) feeds only 16 products, and that kernel fetches every x voxel once per tap (27 x 32
// bytes an output voxel) through cp.async with a bounds test per chunk, so DynUNet's 16 -> 16
// 64^3 convolutions ran at the rate shared memory is filled (~0.33 ms, ~90 TFLOP/s a call on an
// H200: results/h200/dyn32-2026-11-29/dyn/timeline-new-kernels.txt). Here a work-group holds the
// whole weight (16 x 432 bf16) in local memory and walks pairs of output lines (b, oz, oy),
// (b, oz, oy + 1): the 3 planes x 4 rows of W + 2 voxels those lines read sit in a ring of local
// rows (the next pair copies 2 new rows a plane), and every tap's A operand comes from ldmatrix
// row addresses shifted by kx inside those rows, so each x byte leaves L2 about twice, not 27
// times. Output fp32 + bias, as the GEMM's epilogue writes it.
//
// Rows: 32 bytes a voxel (16 bf16), its two 16-byte halves swapped in every other group of 4
// voxels, so that the 8 rows one ldmatrix phase reads (8 consecutive voxels from any start) hit
// 8 different bank groups. Weight rows are 432 + 8 bf16 (880 bytes, likewise conflict-free).
// Warps: the pair's 2 W / 16 row tiles of 16 voxels dealt 2 W / 64 a warp; each tap is one
// k16 step (16 channels), 2 mma a row tile (output channels 0-7, 8-15).
// Needs W a multiple of 32 and at most 64, H even, input channels a multiple of 16; x and the
// weight bf16 bits.

#define CLN_XR 66                       // voxels -1 .. W of a row (W <= 64)
#define CLN_ROW_BYTES (CLN_XR * 32)
#define CLN_X_BYTES (12 * CLN_ROW_BYTES)  // 3 planes kz x 4 rows y
#define CLN_K 432                       // 27 taps x 16 channels
#define CLN_WP (CLN_K + 8)              // bf16 a local weight row
#define CLN_W_BYTES (16 * CLN_WP * 2)

inline uint cln_slot(int r, int hc) { return r * 32 + ((hc ^ ((r >> 2) & 1)) << 4); }

inline void cln_cp_async16(uint dst, __global const ushort* src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
               :
               : "r"(dst), "l"(src), "r"(bytes)
               : "memory");
}

inline void cln_ldmatrix_x4(uint addr, uint* r) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}

// Copies rows y = oy0 - 1 + yy, yy0 <= yy < 4, of planes oz - 1 .. oz + 1 into their ring slots
// (kz 4 + (y & 3)); rows and voxels outside x are zero-filled (the padding).
inline void cln_copy_rows(__global const ushort* x, int cx, int b, int oz, int oy0, int yy0, int D,
                          int H, int W, uint smem, int tid) {
  const int chunks = (W + 2) * 2;
  for (int kz = 0; kz < 3; ++kz)
    for (int yy = yy0; yy < 4; ++yy) {
      const int z = oz + kz - 1, y = oy0 - 1 + yy;
      const bool plane_in = (uint)z < (uint)D && (uint)y < (uint)H;
      const size_t row0 = plane_in ? ((size_t)(b * D + z) * H + y) * W : 0;
      const uint dst = smem + (kz * 4 + (y & 3)) * CLN_ROW_BYTES;
      for (int q = tid; q < chunks; q += 128) {
        const int r = q >> 1, hc = q & 1, ix = r - 1;
        const bool in = plane_in && (uint)ix < (uint)W;
        cln_cp_async16(dst + cln_slot(r, hc), in ? x + (row0 + ix) * cx + hc * 8 : x, in ? 16 : 0);
      }
    }
}

// Grid: groups x 128; group g takes line pairs [g pairs_per, (g + 1) pairs_per) of the
// B D (H / 2) pairs in (b, oz, pair) order. x: [B, D, H, W, cx] bf16, of which channels
// c0 .. c0 + 15 are read; w: [16, k_w] in (tap, channel) order over cx channels (the implicit
// GEMM's permuted weight), of which the same 16 channels of each tap are read; y: [B, D, H, W,
// 16] fp32, written (+ bias where has_bias) or, where accumulate, added to: cx = 32 runs as
// two launches, channels 0-15 then 16-31, in queue order (the same sums every run).
__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void conv3d_lines_bf16_16(__global const ushort* x, int cx, int c0, __global const ushort* w,
                          int k_w, __global const float* bias, int has_bias, int accumulate,
                          int B, int D, int H, int W, int pairs_per, __global float* y) {
  __local uint4 smem4[(CLN_X_BYTES + CLN_W_BYTES) / 16];
  const uint smem = (uint)(size_t)smem4, wsm = smem + CLN_X_BYTES;
  const int tid = get_local_id(0), lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3, lj = lane >> 3, lr = lane & 7;
  const int half_h = H >> 1, total = B * D * half_h;
  const int p_begin = get_group_id(0) * pairs_per, p_end = min(total, p_begin + pairs_per);
  x += c0;
  for (int q = tid; q < 16 * (CLN_K / 8); q += 128) {
    const int n = q / (CLN_K / 8), c8 = (q - n * (CLN_K / 8)) * 8, tap = c8 >> 4;
    cln_cp_async16(wsm + (n * CLN_WP + c8) * 2, w + n * k_w + tap * cx + c0 + (c8 & 8), 16);
  }
  float2 bv[2];
#pragma unroll
  for (int nt = 0; nt < 2; ++nt)
    bv[nt] = has_bias ? vload2(0, bias + nt * 8 + 2 * t) : (float2)(0.0f);
  const int tiles = W >> 4, per_warp = W >> 5;  // row tiles a line; a warp: 2 tiles / 4 warps
  // ldmatrix lanes: B rows n = lr + 8 (lj >> 1), k half lj & 1 (b0, b1 of n 0-7, then 8-15);
  // A rows lr + 8 (lj & 1), k half lj >> 1 (a0 .. a3).
  const uint b_lane = wsm + ((lr + 8 * (lj >> 1)) * CLN_WP + 8 * (lj & 1)) * 2;
  int line[2], m0[2];
#pragma unroll
  for (int mi = 0; mi < 2; ++mi) {
    const int q = warp * per_warp + mi;
    line[mi] = q / tiles, m0[mi] = (q - line[mi] * tiles) * 16;
  }
  for (int p = p_begin; p < p_end; ++p) {
    const int pair = p % half_h, rest = p / half_h, oz = rest % D, b = rest / D, oy0 = 2 * pair;
    barrier(CLK_LOCAL_MEM_FENCE);  // the pair before is done with the slots refilled here
    cln_copy_rows(x, cx, b, oz, oy0, p == p_begin || pair == 0 ? 0 : 2, D, H, W, smem, tid);
    cp_async_commit();
    CP_ASYNC_WAIT(0);              // this item's copies (and the weight, the first time)
    barrier(CLK_LOCAL_MEM_FENCE);  // ... everyone's
    float acc[2][2][4];
#pragma unroll
    for (int mi = 0; mi < 2; ++mi)
#pragma unroll
      for (int nt = 0; nt < 2; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[mi][nt][e] = 0.0f;
#pragma unroll
    for (int kz = 0; kz < 3; ++kz)
#pragma unroll
      for (int ky = 0; ky < 3; ++ky) {
        uint row[2];
#pragma unroll
        for (int mi = 0; mi < 2; ++mi)
          row[mi] = smem + (kz * 4 + ((oy0 + line[mi] + ky - 1) & 3)) * CLN_ROW_BYTES;
#pragma unroll
        for (int kx = 0; kx < 3; ++kx) {
          uint bf[4];
          cln_ldmatrix_x4(b_lane + ((kz * 3 + ky) * 3 + kx) * 32, bf);
#pragma unroll
          for (int mi = 0; mi < 2; ++mi) {
            if (mi >= per_warp) continue;  // uniform over the work-group
            uint a[4];
            cln_ldmatrix_x4(row[mi] + cln_slot(m0[mi] + lr + 8 * (lj & 1) + kx, lj >> 1), a);
            mma_bf16(acc[mi][0], a[0], a[1], a[2], a[3], bf[0], bf[1]);
            mma_bf16(acc[mi][1], a[0], a[1], a[2], a[3], bf[2], bf[3]);
          }
        }
      }
#pragma unroll
    for (int mi = 0; mi < 2; ++mi) {
      if (mi >= per_warp) continue;
      const size_t v = (((size_t)b * D + oz) * H + oy0 + line[mi]) * W + m0[mi] + g;
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
        __global float* out = y + v * 16 + nt * 8 + 2 * t;
        const float2 lo = accumulate ? vload2(0, out) : bv[nt];
        const float2 hi = accumulate ? vload2(0, out + 8 * 16) : bv[nt];
        vstore2((float2)(acc[mi][nt][0], acc[mi][nt][1]) + lo, 0, out);
        vstore2((float2)(acc[mi][nt][2], acc[mi][nt][3]) + hi, 0, out + 8 * 16);
      }
    }
  }
  CP_ASYNC_WAIT(0);
}

#undef CLN_XR
#undef CLN_ROW_BYTES
#undef CLN_X_BYTES
#undef CLN_K
#undef CLN_WP
#undef CLN_W_BYTES
