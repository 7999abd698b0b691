// NVIDIA-only Transformer-XL relative attention (Enformer's) on tensor cores: the constants and
// helpers of attention_relative_body.cl, which gemm_mma.cpp includes once per precision (f16,
// tf32). Written by hand because no library reachable from OpenCL fuses attention (CLBlast has
// GEMMs only), and the unfused form materializes heads x n x (2n - 1) relative logits. Built
// after gemm_mma_nvidia.cl, gemm_pipelined.cl (cp_async16, ldmatrix_x4) and
// attention_mma_nvidia.cl (shfl_xor, pack_half2, ldmatrix_x4_trans, warp_sync,
// online_softmax_tile, store_attention_rows). Key size 64, value size a multiple of 16 up to 192.
//
//   logit(i, j) = (q_i + u) . k_j + (q_i + v) . r[n - 1 + j - i]
//
// The loop is the masked kernel's FlashAttention-2 loop (a 4-warp group owns 64 queries of one
// (batch, head), a warp 16; online softmax in fp32; P into A fragments as the precision does
// it), with the relative term added to S per 64-key tile:
// - the tile's queries i0 .. i0 + 63 and keys j0 .. j0 + 63 meet 127 distances, so a band of
//   128 rows of r (starting at n - 1 + j0 - i0 - 63) streams through local memory with K and V;
// - warp w's 16 rows meet 79 of them (band rows 48 - 16w on): B = (Q + v) band^T is 16 x 80
//   (10 mma tiles), and logit (r, key c) needs B[r][c - r + 15], a different column per row.
//   The skew goes through a per-warp 16 x 84 float tile in local memory.
#define RA_QUERIES 64
#define RA_THREADS 128
#define RA_KEYS 64
#define RA_DK 64
#define RA_DV_MAX 192
#define RA_BAND 128
#define RA_SKEW_ROW 84  // floats per row of a warp's skew tile (80 + padding)

// Rows `rows` of 16-byte chunks `chunks` wide from `src` (row `first` of a [valid, ld] matrix,
// ld in 16-byte chunks) into `dst` (rows `pitch` chunks apart); rows outside [0, valid) are
// zero-filled.
inline void issue_rows(__local uint4* dst, int pitch, __global const uint4* src, long ld,
                       int first, int valid, int rows, int chunks, int tid) {
  for (int piece = tid; piece < rows * chunks; piece += RA_THREADS) {
    const int row = piece / chunks, col = piece - row * chunks, at = first + row;
    const bool in = at >= 0 && at < valid;
    cp_async16(dst + row * pitch + col,
               (__global const uchar*)(src + (in ? (long)at * ld : 0) + col), in ? 16 : 0);
  }
}

// B's accumulators (rows g and g + 8, columns 8 j + 2t and + 1) into the warp's skew tile.
inline void store_skew(float rel[10][4], __local float* skew, int g, int t) {
#pragma unroll
  for (int j = 0; j < 10; ++j) {
    vstore2((float2)(rel[j][0], rel[j][1]), 0, skew + g * RA_SKEW_ROW + j * 8 + 2 * t);
    vstore2((float2)(rel[j][2], rel[j][3]), 0, skew + (g + 8) * RA_SKEW_ROW + j * 8 + 2 * t);
  }
}

// S += the relative term: row g, key c takes B[g][c - g + 15]; row g + 8, B[g + 8][c - g + 7].
inline void add_skewed(float s[8][4], __local const float* skew, int g, int t) {
  __local const float* row0 = skew + g * RA_SKEW_ROW + 15 - g + 2 * t;
  __local const float* row8 = skew + (g + 8) * RA_SKEW_ROW + 7 - g + 2 * t;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    s[j][0] += row0[j * 8];
    s[j][1] += row0[j * 8 + 1];
    s[j][2] += row8[j * 8];
    s[j][3] += row8[j * 8 + 1];
  }
}
