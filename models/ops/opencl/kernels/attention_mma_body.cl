// The f16 masked attention kernel (attention_mma_nvidia.cl says how it works), included with
// FA_NAME, FA_MBLK (16-query blocks a warp: 1 or 2), FA_DIRECT and FA_FAST (0 or 1) defined. A
// work-group owns FA_QUERIES = 64 FA_MBLK queries of one (batch, head).
//
// FA_DIRECT 1 (issue 27): K and V are read where the QKV GEMM wrote them, as half rows
// ([B n, ld] with the head's 64 columns at k_col + 64 h), and no attention_pack_f16 pass runs.
// Both tiles keep a row per key in local memory; V's B fragments come by ldmatrix .trans
// (lanes address keys, not dimensions). Keys past n are zero-filled by cp.async (src-size 0,
// from a clamped row), as the pack pass wrote zeros there: P is 0 for them, and 0 times
// whatever followed in the buffer could be NaN. FA_FAST 1 converts P by pairs
// (pack_half2_x2) and takes exp2 as one MUFU.EX2 (exp2_ftz).
#define FA_QUERIES (64 * FA_MBLK)
#if FA_FAST
#define FA_PACK pack_half2_x2
#else
#define FA_PACK pack_half2
#endif

__kernel __attribute__((reqd_work_group_size(FA_THREADS, 1, 1)))
#if FA_DIRECT
void FA_NAME(__global const float* q, __global const ushort* k, __global const ushort* v,
             __global const float* key_bias, int has_bias, int n, int n_pad, int heads, int ld_q,
             int ld_out, int q_col, float scale, __global float* out, int halves, int ld_k,
             int ld_v, int k_col, int v_col) {
#else
void FA_NAME(__global const float* q, __global const uint4* kh, __global const uint4* vt,
             __global const float* key_bias, int has_bias, int n, int n_pad, int heads, int ld_q,
             int ld_out, int q_col, float scale, __global float* out, int halves) {
#endif
  __local uint4 ks[FA_STAGES * FA_TILE];
  __local uint4 vt_local[FA_STAGES * FA_TILE];
  __local float bias_tile[FA_STAGES * FA_KEYS];
  const int tid = get_local_id(0), lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int bh = get_group_id(1), b = bh / heads, h = bh % heads;
  const int q0 = get_group_id(0) * FA_QUERIES + warp * 16 * FA_MBLK;
  const float qscale = scale * 1.4426950408889634f;  // log2(e): softmax by exp2

  // Q fragments for the warp's rows, block mb = rows q0 + 16 mb ..: 4 k-steps of 16 dimensions.
  uint qa[FA_MBLK][4][4];
#pragma unroll
  for (int mb = 0; mb < FA_MBLK; ++mb) {
    const int r0 = min(q0 + mb * 16 + g, n - 1), r8 = min(q0 + mb * 16 + g + 8, n - 1);
    const long p0 = (long)(b * n + r0) * ld_q + q_col + h * FA_DH;
    const long p8 = (long)(b * n + r8) * ld_q + q_col + h * FA_DH;
    const int hq = halves & ACT_HALF_X;
#define FA_Q(at) (act_load(q, (at), hq) * qscale)
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      const int d = s * 16 + 2 * t;
      qa[mb][s][0] = pack_half2(FA_Q(p0 + d), FA_Q(p0 + d + 1));
      qa[mb][s][1] = pack_half2(FA_Q(p8 + d), FA_Q(p8 + d + 1));
      qa[mb][s][2] = pack_half2(FA_Q(p0 + d + 8), FA_Q(p0 + d + 9));
      qa[mb][s][3] = pack_half2(FA_Q(p8 + d + 8), FA_Q(p8 + d + 9));
    }
#undef FA_Q
  }
  float o[FA_MBLK][8][4];
  float m0[FA_MBLK], m8[FA_MBLK], l0[FA_MBLK], l8[FA_MBLK];  // rows g and g + 8 of each block
#pragma unroll
  for (int mb = 0; mb < FA_MBLK; ++mb) {
#pragma unroll
    for (int i = 0; i < 8; ++i) o[mb][i][0] = o[mb][i][1] = o[mb][i][2] = o[mb][i][3] = 0.0f;
    m0[mb] = m8[mb] = -1e30f;
    l0[mb] = l8[mb] = 0.0f;
  }

  // Tile `kt` into ring slot kt % FA_STAGES: 512 16-byte pieces of each of K and V^T (V with
  // FA_DIRECT), 4 per item of each, and the tile's 64 key biases (log2 units; -1e30 past n).
  const int tiles = n_pad / FA_KEYS;
#define FA_BIAS_TILE(kt)                                                                      \
  if (tid < FA_KEYS) {                                                                        \
    const int key = (kt) * FA_KEYS + tid;                                                     \
    bias_tile[((kt) % FA_STAGES) * FA_KEYS + tid] =                                           \
        key < n ? (has_bias ? key_bias[b * n + key] * 1.4426950408889634f : 0.0f) : -1e30f;   \
  }
#if FA_DIRECT
  const long k_at = (long)b * n * ld_k + k_col + h * FA_DH;
  const long v_at = (long)b * n * ld_v + v_col + h * FA_DH;
#define FA_ISSUE(kt)                                                                          \
  {                                                                                           \
    const int slot = (kt) % FA_STAGES, kbase = (kt) * FA_KEYS;                                \
    for (int i = 0; i < 512 / FA_THREADS; ++i) {                                              \
      const int piece = tid + i * FA_THREADS, row = piece >> 3, col = piece & 7;              \
      const int key = min(kbase + row, n - 1), bytes = kbase + row < n ? 16 : 0;              \
      cp_async16(ks + slot * FA_TILE + row * FA_ROW + col,                                    \
                 (__global const uchar*)(k + k_at + (long)key * ld_k + col * 8), bytes);       \
      cp_async16(vt_local + slot * FA_TILE + row * FA_ROW + col,                              \
                 (__global const uchar*)(v + v_at + (long)key * ld_v + col * 8), bytes);       \
    }                                                                                         \
    FA_BIAS_TILE(kt)                                                                          \
  }
#else
#define FA_ISSUE(kt)                                                                          \
  {                                                                                           \
    const int slot = (kt) % FA_STAGES, kbase = (kt) * FA_KEYS;                                \
    for (int i = 0; i < 512 / FA_THREADS; ++i) {                                              \
      const int piece = tid + i * FA_THREADS, row = piece >> 3, col = piece & 7;              \
      cp_async16(ks + slot * FA_TILE + row * FA_ROW + col,                                    \
                 (__global const uchar*)(kh + ((long)bh * n_pad + kbase + row) * 8 + col), 16); \
      cp_async16(vt_local + slot * FA_TILE + row * FA_ROW + col,                              \
                 (__global const uchar*)(vt + ((long)bh * FA_DH + row) * (n_pad / 8) +         \
                                         kbase / 8 + col),                                    \
                 16);                                                                         \
    }                                                                                         \
    FA_BIAS_TILE(kt)                                                                          \
  }
#endif
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

    // S = Q K^T for each block's 16 rows x 64 keys: 8 tiles of 8 keys, two per ldmatrix.x4,
    // each K fragment used by every block.
    float s[FA_MBLK][8][4];
#pragma unroll
    for (int mb = 0; mb < FA_MBLK; ++mb)
#pragma unroll
      for (int j = 0; j < 8; ++j) s[mb][j][0] = s[mb][j][1] = s[mb][j][2] = s[mb][j][3] = 0.0f;
#pragma unroll
    for (int st = 0; st < 4; ++st) {
#pragma unroll
      for (int jp = 0; jp < 4; ++jp) {
        uint kb[4];
        ldmatrix_x4(kslot + (jp * 16 + lm_row) * FA_ROW + st * 2 + lm_chunk, kb);
#pragma unroll
        for (int mb = 0; mb < FA_MBLK; ++mb) {
          mma_f16(s[mb][2 * jp], qa[mb][st][0], qa[mb][st][1], qa[mb][st][2], qa[mb][st][3],
                  kb[0], kb[1]);
          mma_f16(s[mb][2 * jp + 1], qa[mb][st][0], qa[mb][st][1], qa[mb][st][2],
                  qa[mb][st][3], kb[2], kb[3]);
        }
      }
    }
#pragma unroll
    for (int mb = 0; mb < FA_MBLK; ++mb)
      online_softmax_tile(s[mb], bslot, t, &m0[mb], &m8[mb], &l0[mb], &l8[mb], o[mb], 8,
                          FA_FAST);
    // O += P V: k-step kk covers keys 16 kk .. 16 kk + 15, i.e. S tiles 2 kk and 2 kk + 1.
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      uint pa[FA_MBLK][4];
#pragma unroll
      for (int mb = 0; mb < FA_MBLK; ++mb) {
        pa[mb][0] = FA_PACK(s[mb][2 * kk][0], s[mb][2 * kk][1]);
        pa[mb][1] = FA_PACK(s[mb][2 * kk][2], s[mb][2 * kk][3]);
        pa[mb][2] = FA_PACK(s[mb][2 * kk + 1][0], s[mb][2 * kk + 1][1]);
        pa[mb][3] = FA_PACK(s[mb][2 * kk + 1][2], s[mb][2 * kk + 1][3]);
      }
#pragma unroll
      for (int ip = 0; ip < 4; ++ip) {
        uint vb[4];
#if FA_DIRECT
        // Blocks: keys 16 kk .. + 7 and + 8 .. + 15 of dimensions 16 ip .. + 7, then of 16 ip + 8
        // .. + 15, transposed: b0, b1 of n8 tile 2 ip, then of 2 ip + 1.
        ldmatrix_x4_trans(vslot + (kk * 16 + (lane & 15)) * FA_ROW + ip * 2 + (lane >> 4), vb);
#else
        ldmatrix_x4(vslot + (ip * 16 + lm_row) * FA_ROW + kk * 2 + lm_chunk, vb);
#endif
#pragma unroll
        for (int mb = 0; mb < FA_MBLK; ++mb) {
          mma_f16(o[mb][2 * ip], pa[mb][0], pa[mb][1], pa[mb][2], pa[mb][3], vb[0], vb[1]);
          mma_f16(o[mb][2 * ip + 1], pa[mb][0], pa[mb][1], pa[mb][2], pa[mb][3], vb[2], vb[3]);
        }
      }
    }
  }
  CP_ASYNC_WAIT(0);
#undef FA_ISSUE
#undef FA_BIAS_TILE
  const long out_at = (long)b * n * ld_out + h * FA_DH + 2 * t;
#pragma unroll
  for (int mb = 0; mb < FA_MBLK; ++mb) {
    if (halves & ACT_HALF_Y)
      store_attention_rows_half(o[mb], 8, FA_DH, l0[mb], l8[mb], q0 + mb * 16 + g, n,
                                (__global ushort*)out + out_at, ld_out);
    else
      store_attention_rows(o[mb], 8, FA_DH, l0[mb], l8[mb], q0 + mb * 16 + g, n, out + out_at,
                           ld_out);
  }
}

#undef FA_QUERIES
#undef FA_PACK
