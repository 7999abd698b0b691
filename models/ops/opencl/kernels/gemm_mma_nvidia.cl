// NVIDIA-only tensor-core GEMM helpers: inline PTX mma.sync (sm_80+), built only on NVIDIA
// platforms (other vendors reject asm) in a program of its own, after a compile probe.
// Fragment layouts follow the PTX ISA ("Matrix fragments for mma.m16n8k8 / m16n8k16"); with
// lane = 0..31, g = lane >> 2 (groupID) and t = lane & 3 (threadID_in_group):
//   m16n8k8 .tf32  A (16x8, row):  a0 (g, t)  a1 (g+8, t)  a2 (g, t+4)  a3 (g+8, t+4)
//                  B (8x8, col):   b0 (k=t, n=g)  b1 (k=t+4, n=g)
//   m16n8k16 .f16  A (16x16, row): a0 (g, 2t..2t+1)  a1 (g+8, 2t..2t+1)
//                                  a2 (g, 2t+8..2t+9)  a3 (g+8, 2t+8..2t+9)
//                  B (16x8, col):  b0 (k=2t..2t+1, n=g)  b1 (k=2t+8..2t+9, n=g)
//                  (each .f16x2 register holds the lower k / column in its low half)
//   C/D f32 (16x8): c0 (g, 2t)  c1 (g, 2t+1)  c2 (g+8, 2t)  c3 (g+8, 2t+1)
// "A row, B col" is what y = x . W^T needs: x [M, K] is row-major, W [N, K] row-major is B
// [K, N] column-major.

inline uint to_tf32(float v) {
  uint r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(v));
  return r;
}

inline void mma_tf32(float* c, uint a0, uint a1, uint a2, uint a3, uint b0, uint b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

inline void mma_f16(float* c, uint a0, uint a1, uint a2, uint a3, uint b0, uint b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// Tiles: a 256-item work-group (8 warps, 2 along M x 4 along N) computes a 128 x 128 tile of
// y, each warp 64 x 32 = MMA_MI x 4 mma tiles of 16 x 8 (fragments of A reused 4 times, of B
// MMA_MI times). K advances by MMA_BK = 32 through local tiles stored row-major (m or n rows,
// k contiguous) with a row pitch of 36 words, so the fragment reads (row g, column t) of a warp
// hit 32 different banks.
#define MMA_BM 128
#define MMA_BN 128
#define MMA_BK 32
#define MMA_MI 4
#define MMA_THREADS 256
#define MMA_PITCH 36
// K tile of the f16 and s8 variants. 64 (4 or 2 mma k-steps per barrier) measured 3.5x slower
// than 32 on an H100 (twice the prefetch registers per item), and float4 fetches 19% slower
// than the scalar ones (conflicting half stores to the local tile).
#define MMA_BK_NARROW 32
#define MMA_PITCH_F16 (MMA_BK_NARROW / 2 + 4)  // words per row of a half tile, + 4: no conflicts

// One warp's 64 x 32 block over one local K tile (tf32: 4 steps of k = 8). Local tiles hold
// tf32 bit patterns already (converted once, as stored).
inline void warp_tile_tf32(__local const uint* xs, __local const uint* ws, int row0, int col0,
                           int g, int t, float acc[MMA_MI][4][4]) {
#pragma unroll
  for (int ks = 0; ks < MMA_BK; ks += 8) {
    uint a[MMA_MI][4];
#pragma unroll
    for (int mi = 0; mi < MMA_MI; ++mi) {
      __local const uint* r0 = xs + (row0 + mi * 16 + g) * MMA_PITCH + ks;
      __local const uint* r8 = r0 + 8 * MMA_PITCH;
      a[mi][0] = r0[t];
      a[mi][1] = r8[t];
      a[mi][2] = r0[t + 4];
      a[mi][3] = r8[t + 4];
    }
#pragma unroll
    for (int ni = 0; ni < 4; ++ni) {
      __local const uint* c = ws + (col0 + ni * 8 + g) * MMA_PITCH + ks;
      const uint b0 = c[t], b1 = c[t + 4];
#pragma unroll
      for (int mi = 0; mi < MMA_MI; ++mi)
        mma_tf32(acc[mi][ni], a[mi][0], a[mi][1], a[mi][2], a[mi][3], b0, b1);
    }
  }
}

// The same for f16 (2 steps of k = 16). Local tiles hold halves, two per word (k, k + 1), with
// a row pitch of MMA_PITCH_F16 words: a fragment register is one word, no conversion.
inline void warp_tile_f16(__local const uint* xs, __local const uint* ws, int row0, int col0,
                          int g, int t, float acc[MMA_MI][4][4]) {
#pragma unroll
  for (int ks = 0; ks < MMA_BK_NARROW; ks += 16) {
    uint a[MMA_MI][4];
#pragma unroll
    for (int mi = 0; mi < MMA_MI; ++mi) {
      __local const uint* r0 = xs + (row0 + mi * 16 + g) * MMA_PITCH_F16 + ks / 2 + t;
      __local const uint* r8 = r0 + 8 * MMA_PITCH_F16;
      a[mi][0] = r0[0];
      a[mi][1] = r8[0];
      a[mi][2] = r0[4];
      a[mi][3] = r8[4];
    }
#pragma unroll
    for (int ni = 0; ni < 4; ++ni) {
      __local const uint* c = ws + (col0 + ni * 8 + g) * MMA_PITCH_F16 + ks / 2 + t;
      const uint b0 = c[0], b1 = c[4];
#pragma unroll
      for (int mi = 0; mi < MMA_MI; ++mi)
        mma_f16(acc[mi][ni], a[mi][0], a[mi][1], a[mi][2], a[mi][3], b0, b1);
    }
  }
}

// fp32 -> half bits, rounded to nearest even, in one instruction (vstore_half_rte is far slower
// here, and `half` arithmetic needs cl_khr_fp16, which NVIDIA lacks).
inline ushort to_half_bits(float v) {
  ushort r;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(v));
  return r;
}

// int8 x int8 -> int32 (m16n8k32, sm_80+). A (16x32, row): a0 (g, 4t..4t+3) a1 (g+8, 4t..)
// a2 (g, 4t+16..) a3 (g+8, 4t+16..); B (32x8, col): b0 (k=4t..4t+3, n=g) b1 (k=4t+16.., n=g);
// C as for f32. Each register holds 4 consecutive k, the lowest in its low byte.
inline void mma_s8(int* c, uint a0, uint a1, uint a2, uint a3, uint b0, uint b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

#define MMA_PITCH_S8 (MMA_BK_NARROW / 4 + 4)  // words per row of an int8 tile, + 4: no conflicts

// One local K tile in k32 steps, accumulated in int32 for the whole K (|sum| <= 127^2 K: exact
// for any K below 133,000); the int8 epilogue converts once.
inline void warp_tile_s8(__local const uint* xs, __local const uint* ws, int row0, int col0,
                         int g, int t, int acc[MMA_MI][4][4]) {
#pragma unroll
  for (int ks = 0; ks < MMA_BK_NARROW / 4; ks += 8) {  // in words: 8 words = 32 k
    uint a[MMA_MI][4];
#pragma unroll
    for (int mi = 0; mi < MMA_MI; ++mi) {
      __local const uint* r0 = xs + (row0 + mi * 16 + g) * MMA_PITCH_S8 + ks + t;
      __local const uint* r8 = r0 + 8 * MMA_PITCH_S8;
      a[mi][0] = r0[0];
      a[mi][1] = r8[0];
      a[mi][2] = r0[4];
      a[mi][3] = r8[4];
    }
#pragma unroll
    for (int ni = 0; ni < 4; ++ni) {
      __local const uint* c = ws + (col0 + ni * 8 + g) * MMA_PITCH_S8 + ks + t;
      const uint b0 = c[0], b1 = c[4];
#pragma unroll
      for (int mi = 0; mi < MMA_MI; ++mi)
        mma_s8(acc[mi][ni], a[mi][0], a[mi][1], a[mi][2], a[mi][3], b0, b1);
    }
  }
}

// fp32 -> s8, rounded to nearest even and saturated, in one instruction.
inline char to_s8(float v) {
  int r;
  asm("cvt.rni.sat.s8.f32 %0, %1;" : "=r"(r) : "f"(v));
  return (char)r;
}

// Storing element (r, kk) of a local tile: as tf32 bits (one word each) or as half bits (two a
// word).
#define STORE_TF32(tile, r, kk, v) (tile)[(r) * MMA_PITCH + (kk)] = to_tf32(v)
#define STORE_F16(tile, r, kk, v) \
  ((__local ushort*)(tile))[(r) * (2 * MMA_PITCH_F16) + (kk)] = to_half_bits(v)
// int8: x quantized with the calibrated per-tensor scale as it is stored; W is int8 already.
#define STORE_S8_X(tile, r, kk, v) \
  ((__local char*)(tile))[(r) * (4 * MMA_PITCH_S8) + (kk)] = to_s8((v) * x_inv_scale)
#define STORE_S8_W(tile, r, kk, v) \
  ((__local char*)(tile))[(r) * (4 * MMA_PITCH_S8) + (kk)] = (char)(v)
