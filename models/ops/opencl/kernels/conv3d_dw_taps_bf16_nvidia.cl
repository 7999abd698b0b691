// conv3d's bf16 weight gradient for 3^3 stride-1 padding-1 convolutions of 16 or 32 channels
// (issue 27), NVIDIA only (inline PTX mma.sync, ldmatrix, cp.async). Included in conv3d's bf16
// program after conv3d_dw_bf16_nvidia.cl (ldmatrix_x4_trans_at, cp_async16_at).
//
// Why not conv3d_dw_bf16_*: that kernel gathers X = im2col(x) tile by tile, each x voxel fetched
// again for each of its 27 taps and each 128-column tile, with an index carry per 16-byte chunk.
// With only 16 out channels (M = 16) an mma uses each gathered byte 16 times, so DynUNet's
// 16-channel 64^3 gradients spent their time issuing address arithmetic and cp.async, not mma
// (563 us a 16 -> 16 call, 52 TFLOP/s, on an H200; 214 us here with the ring:
// results/h200/dyn31-2026-11-28/README.md). No library
// takes channels-last bf16 with a split, fixed-order reduction (cuDNN is not reachable from
// OpenCL, CLBlast has no bf16 and no implicit GEMM). Here a work-group stages one output line
// (b, oz, oy) at a time: dy's OW x Co block and the 9 x rows (kz, ky) of OW + 2 voxels that the
// line's 27 taps read, and forms every tap's B operand from shifted ldmatrix row addresses in
// local memory: each x byte leaves L2 once a line instead of once per tap and column tile.
//
//   dW[co, n] = sum over lines, ox of dy[line, ox, co] * x[line + (kz, ky), ox + kx - 1, ci],
//   n = tap C + ci, tap = (kz 3 + ky) 3 + kx.
//
// The 27 C / 16 (tap, 16-channel) units are dealt to the 4 warps, 7 a warp (28 a work-group;
// get_group_id(0) picks the group of 28). Lines are split into slices (get_group_id(2)); each
// work-group writes its slice's partial tile into slot `slice` and conv3d_dw_sum adds the slots in
// slot order: the same bits every run. Two stages: line j + 1 lands while line j multiplies.
// Needs OW a multiple of 16 and at most 64; x and dy channels-last bf16 bits.

#define DWT_OWMAX 64
#define DWT_XR (DWT_OWMAX + 2)             // x rows of one (kz, ky): voxels -1 .. OW
#define DWT_LDX (DWT_C + 8)                // bf16 per local x row: an odd number of chunks
#define DWT_LDY (DWT_CO + 8)               // bf16 per local dy row: likewise
#define DWT_Y_BYTES (DWT_OWMAX * DWT_LDY * 2)
#if DWT_RING
#define DWT_X_BYTES (12 * DWT_XR * DWT_LDX * 2)  // 3 planes kz x 4 rows y
#define DWT_SMEM_BYTES (DWT_X_BYTES + 2 * DWT_Y_BYTES)
#else
#define DWT_X_BYTES (9 * DWT_XR * DWT_LDX * 2)   // a stage: 9 rows (kz, ky), then dy
#define DWT_SMEM_BYTES (2 * DWT_STAGE_BYTES)
#endif
#define DWT_STAGE_BYTES (DWT_X_BYTES + DWT_Y_BYTES)
#define DWT_UPW 7                          // units a warp
#define DWT_MI (DWT_CO / 16)
#define DWT_CK (DWT_C / 8)                 // 16-byte chunks of an x voxel
#define DWT_YK (DWT_CO / 8)                // ... of a dy row

#if DWT_RING
#define DWT_PASTE2(a, b) a##b
#define DWT_PASTE(a, b) DWT_PASTE2(a, b)
#define dwt_ring_copy DWT_PASTE(DWT_NAME, _copy)
// Copies line l's x rows y = oy + ky - 1 for ky >= ky0 of its 3 planes into their ring slots,
// and its dy block to ydst.
inline void dwt_ring_copy(__global const ushort* x, __global const ushort* dy, int l, int ky0,
                          uint ydst, int D, int H, int W, int OD, int OH, int OW, int x_chunks,
                          int y_chunks, uint smem, int tid) {
  const int oy = l % OH, rest = l / OH, oz = rest % OD, b = rest / OD;
  for (int kz = 0; kz < 3; ++kz)
    for (int ky = ky0; ky < 3; ++ky) {
      const int z = oz + kz - 1, y = oy + ky - 1;
      const bool plane_in = (uint)z < (uint)D && (uint)y < (uint)H;
      const size_t row0 = plane_in ? ((size_t)(b * D + z) * H + y) * W : 0;
      const uint dst = smem + (kz * 4 + ((oy + ky) & 3)) * (DWT_XR * DWT_LDX * 2);
      for (int q = tid; q < x_chunks; q += 128) {
        const int r = q / DWT_CK, c8 = (q - r * DWT_CK) * 8, ix = r - 1;
        const bool in = plane_in && (uint)ix < (uint)W;
        cp_async16_at(dst + (r * DWT_LDX + c8) * 2, in ? x + (row0 + ix) * DWT_C + c8 : x,
                      in ? 16 : 0, 0);
      }
    }
  const size_t p0 = (size_t)l * OW;
  for (int q = tid; q < y_chunks; q += 128) {
    const int r = q / DWT_YK, c8 = (q - r * DWT_YK) * 8;
    cp_async16_at(ydst + (r * DWT_LDY + c8) * 2, dy + (p0 + r) * DWT_CO + c8, 16, 0);
  }
}
#endif

// Grid: (groups x 128, 1, slices); slice z covers lines [z lines_per, min(L, (z + 1) lines_per)).
// The argument list is conv3d_dw_bf16_*'s, with lines in place of rows.
__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void DWT_NAME(__global const ushort* x, __global const ushort* dy, int L, int lines_per, int Co,
              int Nn, int C, int D, int H, int W, int ks, int stride, int pad, int OD, int OH,
              int OW, __global float* partial) {
  __local uint4 smem4[DWT_SMEM_BYTES / 16];
  const uint smem = (uint)(size_t)smem4;
  const int tid = get_local_id(0), lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int l_begin = get_group_id(2) * lines_per, l_end = min(L, l_begin + lines_per);
  const int units = 27 * (DWT_C / 16);

  // This warp's units: u = 28 group + warp + 4 i; local byte offset of its tap's rows.
  uint uoff[DWT_UPW];
  int un[DWT_UPW];
#pragma unroll
  for (int i = 0; i < DWT_UPW; ++i) {
    const int u = get_group_id(0) * 4 * DWT_UPW + warp + 4 * i;
    const int tap = u / (DWT_C / 16), cb = u - tap * (DWT_C / 16);
    const int zy = tap / 3, kx = tap - zy * 3;
    uoff[i] = ((zy * DWT_XR + kx) * DWT_LDX + cb * 16) * 2;
    un[i] = u < units ? tap * DWT_C + cb * 16 : -1;
  }
  const int lj = lane >> 3, lr = lane & 7;
  const uint a_lane = DWT_X_BYTES + ((lr + 8 * (lj >> 1)) * DWT_LDY + 8 * (lj & 1)) * 2;
  const uint b_lane = ((lr + 8 * (lj & 1)) * DWT_LDX + 8 * (lj >> 1)) * 2;

  float acc[DWT_UPW][DWT_MI][2][4];
#pragma unroll
  for (int i = 0; i < DWT_UPW; ++i)
#pragma unroll
    for (int mi = 0; mi < DWT_MI; ++mi)
#pragma unroll
      for (int nb = 0; nb < 2; ++nb)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][mi][nb][e] = 0.0f;

#if DWT_RING
  // The ring: x rows y of plane kz in slot kz 4 + (y + 1) & 3. Line oy + 1 of the same plane
  // needs one new row per kz (y = oy + 2), copied into the slot line oy - 1 used while line oy
  // multiplies; a line that starts a plane (oy = 0) or the slice copies all 9 rows once the
  // line before it is done (no overlap there: one line in OH).
  int ukz[DWT_UPW], uky[DWT_UPW];
#pragma unroll
  for (int i = 0; i < DWT_UPW; ++i) {
    const int u = get_group_id(0) * 4 * DWT_UPW + warp + 4 * i;
    const int tap = u / (DWT_C / 16), cb = u - tap * (DWT_C / 16);
    const int zy = tap / 3, kx = tap - zy * 3;
    ukz[i] = zy / 3, uky[i] = zy - ukz[i] * 3;
    uoff[i] = (kx * DWT_LDX + cb * 16) * 2;  // the slot's part added per line
  }
  const int n_lines = l_end - l_begin;
  const int x_chunks = (OW + 2) * DWT_CK, y_chunks = OW * DWT_YK;
  for (int j = 0; j < n_lines; ++j) {
    const int l = l_begin + j, oy = l % OH;
    if (j == 0 || oy == 0) {
      barrier(CLK_LOCAL_MEM_FENCE);  // every item is done with the rows and dy overwritten here
      dwt_ring_copy(x, dy, l, 0, smem + DWT_X_BYTES + (j & 1) * DWT_Y_BYTES, D, H, W, OD, OH, OW,
                    x_chunks, y_chunks, smem, tid);
      cp_async_commit();
    }
    CP_ASYNC_WAIT(0);              // line j's rows and dy have landed for this item
    barrier(CLK_LOCAL_MEM_FENCE);  // ... for every item; line j - 1 is done everywhere
    if (j + 1 < n_lines && oy + 1 < OH) {
      dwt_ring_copy(x, dy, l + 1, 2, smem + DWT_X_BYTES + ((j + 1) & 1) * DWT_Y_BYTES, D, H, W,
                    OD, OH, OW, x_chunks, y_chunks, smem, tid);
      cp_async_commit();
    }
    const uint yst = smem + (j & 1) * DWT_Y_BYTES;
    uint lo[DWT_UPW];
#pragma unroll
    for (int i = 0; i < DWT_UPW; ++i)
      lo[i] = uoff[i] + (ukz[i] * 4 + ((oy + uky[i]) & 3)) * (DWT_XR * DWT_LDX * 2);
    for (int k0 = 0; k0 < OW; k0 += 16) {
      uint a[DWT_MI][4];
#pragma unroll
      for (int mi = 0; mi < DWT_MI; ++mi)
        ldmatrix_x4_trans_at(yst + a_lane + (k0 * DWT_LDY + mi * 16) * 2, a[mi]);
#pragma unroll
      for (int i = 0; i < DWT_UPW; ++i) {
        if (un[i] < 0) continue;  // uniform over the warp
        uint r[4];
        ldmatrix_x4_trans_at(smem + b_lane + lo[i] + k0 * DWT_LDX * 2, r);
#pragma unroll
        for (int mi = 0; mi < DWT_MI; ++mi) {
          mma_bf16(acc[i][mi][0], a[mi][0], a[mi][1], a[mi][2], a[mi][3], r[0], r[1]);
          mma_bf16(acc[i][mi][1], a[mi][0], a[mi][1], a[mi][2], a[mi][3], r[2], r[3]);
        }
      }
    }
  }
  CP_ASYNC_WAIT(0);
#else
  const int n_lines = l_end - l_begin;
  const int xr = OW + 2, x_chunks = xr * DWT_CK, y_chunks = OW * DWT_YK;
  for (int j = -1; j < n_lines; ++j) {
    // Copy line j + 1 into stage (j + 1) & 1 (one commit group whether or not it exists).
    if (j + 1 < n_lines) {
      const int l = l_begin + j + 1;
      const int oy = l % OH, rest = l / OH, oz = rest % OD, b = rest / OD;
      const uint st = smem + ((j + 1) & 1) * DWT_STAGE_BYTES;
#pragma unroll
      for (int zy = 0; zy < 9; ++zy) {
        const int z = oz + zy / 3 - 1, y = oy + zy % 3 - 1;
        const bool plane_in = (uint)z < (uint)D && (uint)y < (uint)H;
        const size_t row0 = ((size_t)(b * D + z) * H + y) * W;
        for (int q = tid; q < x_chunks; q += 128) {
          const int r = q / DWT_CK, c8 = (q - r * DWT_CK) * 8, ix = r - 1;
          const bool in = plane_in && (uint)ix < (uint)W;
          cp_async16_at(st + ((zy * DWT_XR + r) * DWT_LDX + c8) * 2,
                        in ? x + (row0 + ix) * DWT_C + c8 : x, in ? 16 : 0, 0);
        }
      }
      const size_t p0 = (size_t)l * OW;
      for (int q = tid; q < y_chunks; q += 128) {
        const int r = q / DWT_YK, c8 = (q - r * DWT_YK) * 8;
        cp_async16_at(st + DWT_X_BYTES + (r * DWT_LDY + c8) * 2, dy + (p0 + r) * DWT_CO + c8,
                      16, 0);
      }
    }
    cp_async_commit();
    if (j < 0) continue;
    CP_ASYNC_WAIT(1);              // line j has landed for this item
    barrier(CLK_LOCAL_MEM_FENCE);  // ... for every item
    const uint st = smem + (j & 1) * DWT_STAGE_BYTES;
    for (int k0 = 0; k0 < OW; k0 += 16) {
      uint a[DWT_MI][4];
#pragma unroll
      for (int mi = 0; mi < DWT_MI; ++mi)
        ldmatrix_x4_trans_at(st + a_lane + (k0 * DWT_LDY + mi * 16) * 2, a[mi]);
#pragma unroll
      for (int i = 0; i < DWT_UPW; ++i) {
        if (un[i] < 0) continue;  // uniform over the warp
        uint r[4];
        ldmatrix_x4_trans_at(st + b_lane + uoff[i] + k0 * DWT_LDX * 2, r);
#pragma unroll
        for (int mi = 0; mi < DWT_MI; ++mi) {
          mma_bf16(acc[i][mi][0], a[mi][0], a[mi][1], a[mi][2], a[mi][3], r[0], r[1]);
          mma_bf16(acc[i][mi][1], a[mi][0], a[mi][1], a[mi][2], a[mi][3], r[2], r[3]);
        }
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // stage j & 1 is read by all before line j + 2 refills it
  }
  CP_ASYNC_WAIT(0);
#endif

  __global float* slot = partial + (size_t)get_group_id(2) * Co * Nn;
#pragma unroll
  for (int i = 0; i < DWT_UPW; ++i) {
    if (un[i] < 0) continue;
#pragma unroll
    for (int mi = 0; mi < DWT_MI; ++mi)
#pragma unroll
      for (int nb = 0; nb < 2; ++nb)
        conv_dw_store_fragment(slot, Co, Nn, mi * 16 + g, un[i] + nb * 8 + 2 * t,
                               (float4)(acc[i][mi][nb][0], acc[i][mi][nb][1], acc[i][mi][nb][2],
                                        acc[i][mi][nb][3]));
  }
}

#undef DWT_NAME
#undef DWT_RING
#undef DWT_Y_BYTES
#undef DWT_SMEM_BYTES
#ifdef dwt_ring_copy
#undef dwt_ring_copy
#undef DWT_PASTE
#undef DWT_PASTE2
#endif
#undef DWT_C
#undef DWT_CO
#undef DWT_LDX
#undef DWT_LDY
#undef DWT_X_BYTES
#undef DWT_STAGE_BYTES
#undef DWT_MI
#undef DWT_CK
#undef DWT_YK
#undef DWT_OWMAX
#undef DWT_XR
#undef DWT_UPW
