// NVIDIA-only fused masked attention on tensor cores (built with gemm_mma_nvidia.cl, whose
// fragment layouts and mma_f16 / to_half_bits it uses). Head size 64.
//
// attention_pack_f16 first converts K and V once per call to halves, per (batch, head): K as
// [n, 64] rows and V transposed as [64, n], so that the attention kernel's many work-groups per
// head copy ready-made half tiles with 16-byte loads instead of each converting (and
// transposing) the same fp32 values again.
// A 128-item work-group (4 warps) owns 64 queries of one (batch, head); each warp 16 of them
// (165 registers an item: 8-warp groups ran one per SM; Geneformer full's 5 attention calls took
// 3.70 ms with them, 3.18 ms with 4 warps, on an H100).
// Tiles of 64 keys of K (row per key) and V (transposed: row per dimension) stream through a
// 3-stage cp.async ring in local memory (the GEMM's helpers, gemm_pipelined.cl), so the
// next tiles load while this one is multiplied, one barrier per tile; fragments come by
// ldmatrix.x4 (rows padded to 144 bytes: the 8 rows of one phase hit 8 bank groups). Per tile,
// S = Q K^T with m16n8k16 mma (Q fragments held in registers for the whole loop), an
// online softmax in fp32 on the S fragments (row max and sum across the 4 threads sharing a
// row), then P is repacked from the S accumulator layout straight into A fragments (the layouts
// match: no trip through memory) and O += P V with mma. Nothing of size n x n exists anywhere.
// The score scale and log2(e) are folded into Q so the softmax uses exp2.
#define FA_QUERIES 64
#define FA_THREADS 128
#define FA_KEYS 64
#define FA_DH 64
#define FA_ROW 9  // 16-byte chunks per local row: 8 of data (64 halves) + 1 of padding
#define FA_STAGES 3
#define FA_TILE (FA_KEYS * FA_ROW)  // chunks per K or V^T tile (both are 64 x 64)

inline float shfl_xor(float v, int mask) {
  float r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : "f"(v), "r"(mask));
  return r;
}

inline uint pack_half2(float lo, float hi) {
  return (uint)to_half_bits(lo) | ((uint)to_half_bits(hi) << 16);
}

// Online softmax over one 64-key tile of S for the warp's rows g and g + 8 (c0, c1 of tile j
// are row g, keys 8 j + 2t and + 1; c2, c3 row g + 8): adds the tile's key biases, updates the
// running maxima m and per-thread partial sums l, rescales O's `o_tiles` n8 tiles, and leaves
// exp2(s - max) in s. Shared by the f16, tf32 and relative kernels (o_tiles is a constant at
// every call, so the loops unroll and O stays in registers).
inline void online_softmax_tile(float s[8][4], __local const float* bias, int t, float* m0,
                                float* m8, float* l0, float* l8, float o[][4], int o_tiles) {
  float mx0 = *m0, mx8 = *m8;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const float b0 = bias[j * 8 + 2 * t], b1 = bias[j * 8 + 2 * t + 1];
    s[j][0] += b0;
    s[j][1] += b1;
    s[j][2] += b0;
    s[j][3] += b1;
    mx0 = fmax(mx0, fmax(s[j][0], s[j][1]));
    mx8 = fmax(mx8, fmax(s[j][2], s[j][3]));
  }
  mx0 = fmax(mx0, shfl_xor(mx0, 1));
  mx0 = fmax(mx0, shfl_xor(mx0, 2));
  mx8 = fmax(mx8, shfl_xor(mx8, 1));
  mx8 = fmax(mx8, shfl_xor(mx8, 2));
  const float c0 = native_exp2(*m0 - mx0), c8 = native_exp2(*m8 - mx8);
  *m0 = mx0;
  *m8 = mx8;
  float sum0 = 0.0f, sum8 = 0.0f;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    s[j][0] = native_exp2(s[j][0] - mx0);
    s[j][1] = native_exp2(s[j][1] - mx0);
    s[j][2] = native_exp2(s[j][2] - mx8);
    s[j][3] = native_exp2(s[j][3] - mx8);
    sum0 += s[j][0] + s[j][1];
    sum8 += s[j][2] + s[j][3];
  }
  *l0 = *l0 * c0 + sum0;  // reduced across the row at the end
  *l8 = *l8 * c8 + sum8;
#pragma unroll
  for (int i = 0; i < o_tiles; ++i) {
    o[i][0] *= c0;
    o[i][1] *= c0;
    o[i][2] *= c8;
    o[i][3] *= c8;
  }
}

// O / l for rows r0 and r0 + 8 (those below n) into `out`, which points at row 0 of the batch
// item, the head's first column plus 2t; rows are ld_out apart. O has o_tiles n8 tiles (a
// constant), of which the first cols / 8 are stored.
inline void store_attention_rows(float o[][4], int o_tiles, int cols, float l0, float l8, int r0,
                                 int n, __global float* out, int ld_out) {
  l0 += shfl_xor(l0, 1);
  l0 += shfl_xor(l0, 2);
  l8 += shfl_xor(l8, 1);
  l8 += shfl_xor(l8, 2);
  const float inv0 = 1.0f / l0, inv8 = 1.0f / l8;
#pragma unroll
  for (int i = 0; i < o_tiles; ++i) {
    if (i * 8 >= cols) break;
    if (r0 < n) vstore2((float2)(o[i][0] * inv0, o[i][1] * inv0), 0, out + (long)r0 * ld_out + i * 8);
    if (r0 + 8 < n)
      vstore2((float2)(o[i][2] * inv8, o[i][3] * inv8), 0, out + (long)(r0 + 8) * ld_out + i * 8);
  }
}

// One work-group per 64 keys of one (batch, head): kh[bh][key][d], vt[bh][d][key] as half bits.
// Keys past n are written as zeros up to the next multiple of 64 (n_pad).
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void attention_pack_f16(__global const float* k, __global const float* v, int n, int n_pad,
                        int heads, int ld_k, int ld_v, int k_col, int v_col,
                        __global ushort* kh, __global ushort* vt) {
  __local float tile[64 * 65];
  const int tid = get_local_id(0);
  const int k0 = get_group_id(0) * 64, bh = get_group_id(1), b = bh / heads, h = bh % heads;
  for (int i = tid; i < 64 * 64; i += 256) {  // K: coalesced along d on both sides
    const int key = i >> 6, d = i & 63;
    const float x = k0 + key < n ? k[(long)(b * n + k0 + key) * ld_k + k_col + h * FA_DH + d] : 0.0f;
    kh[((long)bh * n_pad + k0 + key) * FA_DH + d] = to_half_bits(x);
    tile[key * 65 + d] = k0 + key < n ? v[(long)(b * n + k0 + key) * ld_v + v_col + h * FA_DH + d] : 0.0f;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = tid; i < 64 * 64; i += 256) {  // V^T: coalesced along keys when written
    const int d = i >> 6, key = i & 63;
    vt[((long)bh * FA_DH + d) * n_pad + k0 + key] = to_half_bits(tile[key * 65 + d]);
  }
}

__kernel __attribute__((reqd_work_group_size(FA_THREADS, 1, 1)))
void attention_f16_mma(__global const float* q, __global const uint4* kh, __global const uint4* vt,
                       __global const float* key_bias, int has_bias, int n, int n_pad, int heads,
                       int ld_q, int ld_out, int q_col, float scale, __global float* out) {
  __local uint4 ks[FA_STAGES * FA_TILE];
  __local uint4 vt_local[FA_STAGES * FA_TILE];
  __local float bias_tile[FA_STAGES * FA_KEYS];
  const int tid = get_local_id(0), lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int bh = get_group_id(1), b = bh / heads, h = bh % heads;
  const int q0 = get_group_id(0) * FA_QUERIES + warp * 16;
  const float qscale = scale * 1.4426950408889634f;  // log2(e): softmax by exp2

  // Q fragments for the warp's 16 rows: 4 k-steps of 16 dimensions.
  uint qa[4][4];
  {
    const int r0 = min(q0 + g, n - 1), r8 = min(q0 + g + 8, n - 1);
    __global const float* p0 = q + (long)(b * n + r0) * ld_q + q_col + h * FA_DH;
    __global const float* p8 = q + (long)(b * n + r8) * ld_q + q_col + h * FA_DH;
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      const int d = s * 16 + 2 * t;
      qa[s][0] = pack_half2(p0[d] * qscale, p0[d + 1] * qscale);
      qa[s][1] = pack_half2(p8[d] * qscale, p8[d + 1] * qscale);
      qa[s][2] = pack_half2(p0[d + 8] * qscale, p0[d + 9] * qscale);
      qa[s][3] = pack_half2(p8[d + 8] * qscale, p8[d + 9] * qscale);
    }
  }
  float o[8][4];
#pragma unroll
  for (int i = 0; i < 8; ++i) o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.0f;
  float m0 = -1e30f, m8 = -1e30f, l0 = 0.0f, l8 = 0.0f;  // rows g and g + 8

  // Tile `kt` into ring slot kt % FA_STAGES: 512 16-byte pieces of each of K and V^T, 4 per
  // item of each, and the tile's 64 key biases (log2 units; -1e30 past n).
  const int tiles = n_pad / FA_KEYS;
#define FA_ISSUE(kt)                                                                          \
  {                                                                                           \
    const int slot = (kt) % FA_STAGES, kbase = (kt) * FA_KEYS;                                \
    for (int i = 0; i < 512 / FA_THREADS; ++i) {                                              \
      const int piece = tid + i * FA_THREADS, row = piece >> 3, col = piece & 7;              \
      cp_async16(ks + slot * FA_TILE + row * FA_ROW + col,                                    \
                 (__global const ushort*)(kh + ((long)bh * n_pad + kbase + row) * 8 + col), 16); \
      cp_async16(vt_local + slot * FA_TILE + row * FA_ROW + col,                              \
                 (__global const ushort*)(vt + ((long)bh * FA_DH + row) * (n_pad / 8) +        \
                                          kbase / 8 + col),                                   \
                 16);                                                                         \
    }                                                                                         \
    if (tid < FA_KEYS) {                                                                      \
      const int key = kbase + tid;                                                            \
      bias_tile[slot * FA_KEYS + tid] =                                                       \
          key < n ? (has_bias ? key_bias[b * n + key] * 1.4426950408889634f : 0.0f) : -1e30f; \
    }                                                                                         \
  }
  for (int st = 0; st < FA_STAGES - 1; ++st) {
    if (st < tiles) FA_ISSUE(st)
    cp_async_commit();
  }
  // Lane -> the row and chunk it addresses for ldmatrix.x4 over two 8-row blocks (keys of K,
  // dimensions of V^T) and one k16 step: b0, b1 of the first block, then of the second.
  const int lm_row = ((lane >> 4) << 3) + (lane & 7), lm_chunk = (lane >> 3) & 1;

  for (int kt = 0; kt < tiles; ++kt) {
    CP_ASYNC_WAIT(1);  // FA_STAGES - 2
    barrier(CLK_LOCAL_MEM_FENCE);  // tile kt everywhere; slot (kt - 1) % FA_STAGES is free
    if (kt + FA_STAGES - 1 < tiles) FA_ISSUE(kt + FA_STAGES - 1)
    cp_async_commit();
    __local const uint4* kslot = ks + (kt % FA_STAGES) * FA_TILE;
    __local const uint4* vslot = vt_local + (kt % FA_STAGES) * FA_TILE;
    __local const float* bslot = bias_tile + (kt % FA_STAGES) * FA_KEYS;

    // S = Q K^T for 16 rows x 64 keys: 8 tiles of 8 keys, two per ldmatrix.x4.
    float s[8][4];
#pragma unroll
    for (int j = 0; j < 8; ++j) s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.0f;
#pragma unroll
    for (int st = 0; st < 4; ++st) {
#pragma unroll
      for (int jp = 0; jp < 4; ++jp) {
        uint kb[4];
        ldmatrix_x4(kslot + (jp * 16 + lm_row) * FA_ROW + st * 2 + lm_chunk, kb);
        mma_f16(s[2 * jp], qa[st][0], qa[st][1], qa[st][2], qa[st][3], kb[0], kb[1]);
        mma_f16(s[2 * jp + 1], qa[st][0], qa[st][1], qa[st][2], qa[st][3], kb[2], kb[3]);
      }
    }
    online_softmax_tile(s, bslot, t, &m0, &m8, &l0, &l8, o, 8);
    // O += P V: k-step kk covers keys 16 kk .. 16 kk + 15, i.e. S tiles 2 kk and 2 kk + 1.
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      const uint a0 = pack_half2(s[2 * kk][0], s[2 * kk][1]);
      const uint a1 = pack_half2(s[2 * kk][2], s[2 * kk][3]);
      const uint a2 = pack_half2(s[2 * kk + 1][0], s[2 * kk + 1][1]);
      const uint a3 = pack_half2(s[2 * kk + 1][2], s[2 * kk + 1][3]);
#pragma unroll
      for (int ip = 0; ip < 4; ++ip) {
        uint vb[4];
        ldmatrix_x4(vslot + (ip * 16 + lm_row) * FA_ROW + kk * 2 + lm_chunk, vb);
        mma_f16(o[2 * ip], a0, a1, a2, a3, vb[0], vb[1]);
        mma_f16(o[2 * ip + 1], a0, a1, a2, a3, vb[2], vb[3]);
      }
    }
  }
  CP_ASYNC_WAIT(0);
#undef FA_ISSUE
  store_attention_rows(o, 8, FA_DH, l0, l8, q0 + g, n, out + (long)b * n * ld_out + h * FA_DH + 2 * t,
                       ld_out);
}
