// NVIDIA-only Transformer-XL relative attention (Enformer's) on fp16 tensor cores. Written by
// hand because no library reachable from OpenCL fuses attention (CLBlast has GEMMs only), and
// the unfused form materializes heads x n x (2n - 1) relative logits. Built after
// gemm_mma_nvidia.cl (mma_f16, to_half_bits), gemm_pipelined.cl (cp_async16, ldmatrix_x4),
// attention_mma_nvidia.cl (shfl_xor, pack_half2, ldmatrix_x4_trans, online_softmax_tile,
// store_attention_rows) and attention_tf32_nvidia.cl (warp_sync). Key size 64, value size a
// multiple of 16 up to 192.
//
//   logit(i, j) = (q_i + u) . k_j + (q_i + v) . r[n - 1 + j - i]
//
// The loop is the masked kernel's FlashAttention-2 loop (a 4-warp group owns 64 queries of one
// (batch, head), a warp 16; online softmax in fp32; P repacked from S's accumulators into A
// fragments), with the relative term added to S per 64-key tile:
// - the tile's queries i0 .. i0 + 63 and keys j0 .. j0 + 63 meet 127 distances, so a band of
//   128 rows of r (starting at n - 1 + j0 - i0 - 63) streams through the ring with K and V;
// - warp w's 16 rows meet 79 of them (band rows 48 - 16w on): B = (Q + v) band^T is 16 x 80
//   (10 mma tiles), and logit (r, key c) needs B[r][c - r + 15], a different column per row.
//   The skew goes through a per-warp 16 x 84 float tile in local memory.
// Operands are half copies of q, k, v and r made by one f32_to_f16 pass each, read in place
// (row strides heads x 64 and heads x dv halves, 16-byte aligned): rows past n, or band rows
// outside [0, 2n - 2], are zero-filled by cp.async and masked. V tiles are row-major (key
// rows) and feed P V through ldmatrix.trans. The ring has 2 stages (53 KB each; 128 KB in all
// with the skew tiles: one group per SM).
#define RA_QUERIES 64
#define RA_THREADS 128
#define RA_KEYS 64
#define RA_DK 64
#define RA_DV_MAX 192
#define RA_BAND 128
#define RA_ROW 9                      // chunks per K or band row: 8 of data + 1 of padding
#define RA_VROW_MAX (RA_DV_MAX / 8 + 1)  // chunks per V row at most (odd: no bank conflicts)
#define RA_STAGES 2
#define RA_SKEW_ROW 84                // floats per row of a warp's skew tile (80 + padding)

// Rows `rows` of 16-byte chunks `chunks` wide from `src` (row `first` of a [valid, ld] half
// matrix, ld in 16-byte chunks) into `dst` (rows `pitch` chunks apart); rows outside
// [0, valid) are zero-filled.
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

// q, content_bias, pos_bias, out: fp32. kh, vh: half [batch, n, heads x 64 | dv]; rh: half
// [2n - 1, heads x 64].
__kernel __attribute__((reqd_work_group_size(RA_THREADS, 1, 1)))
void rel_attention_f16_mma(__global const float* q, __global const uint4* kh,
                           __global const uint4* vh, __global const uint4* rh,
                           __global const float* content_bias, __global const float* pos_bias,
                           int n, int heads, int dv, __global float* out) {
  __local uint4 ks[RA_STAGES * RA_KEYS * RA_ROW];
  __local uint4 band[RA_STAGES * RA_BAND * RA_ROW];
  __local uint4 vs[RA_STAGES * RA_KEYS * RA_VROW_MAX];
  __local float skew[RA_THREADS / 32 * 16 * RA_SKEW_ROW];
  __local float mask[RA_STAGES * RA_KEYS];
  const int tid = get_local_id(0), lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int bh = get_group_id(1), b = bh / heads, h = bh % heads;
  const int i0 = get_group_id(0) * RA_QUERIES, q0 = i0 + warp * 16;
  const int vrow = dv / 8 + 1, v_chunks = dv / 8;
  const long k_ld = heads * RA_DK / 8, v_ld = (long)heads * dv / 8;  // in 16-byte chunks
  const float log2e = 1.4426950408889634f;  // softmax by exp2

  // (q + u) and (q + v) fragments for the warp's 16 rows, 4 k-steps of 16 dimensions each.
  uint qc[4][4], qp[4][4];
  {
    const int r0 = min(q0 + g, n - 1), r8 = min(q0 + g + 8, n - 1);
    __global const float* p0 = q + ((long)b * n + r0) * heads * RA_DK + h * RA_DK;
    __global const float* p8 = q + ((long)b * n + r8) * heads * RA_DK + h * RA_DK;
    __global const float* u = content_bias + h * RA_DK;
    __global const float* v = pos_bias + h * RA_DK;
#pragma unroll
    for (int s = 0; s < 4; ++s) {
#pragma unroll
      for (int hi = 0; hi < 2; ++hi) {
        const int d = s * 16 + 2 * t + hi * 8;
        qc[s][2 * hi] = pack_half2((p0[d] + u[d]) * log2e, (p0[d + 1] + u[d + 1]) * log2e);
        qc[s][2 * hi + 1] = pack_half2((p8[d] + u[d]) * log2e, (p8[d + 1] + u[d + 1]) * log2e);
        qp[s][2 * hi] = pack_half2((p0[d] + v[d]) * log2e, (p0[d + 1] + v[d + 1]) * log2e);
        qp[s][2 * hi + 1] = pack_half2((p8[d] + v[d]) * log2e, (p8[d + 1] + v[d + 1]) * log2e);
      }
    }
  }
  float o[RA_DV_MAX / 8][4];
#pragma unroll
  for (int i = 0; i < RA_DV_MAX / 8; ++i) o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.0f;
  float m0 = -1e30f, m8 = -1e30f, l0 = 0.0f, l8 = 0.0f;  // rows g and g + 8

  __global const uint4* kb = kh + (long)b * n * k_ld + h * (RA_DK / 8);
  __global const uint4* vb = vh + (long)b * n * v_ld + h * (dv / 8);
  __global const uint4* rb = rh + h * (RA_DK / 8);
  const int tiles = (n + RA_KEYS - 1) / RA_KEYS;
#define RA_ISSUE(kt)                                                                          \
  {                                                                                           \
    const int slot = (kt) % RA_STAGES, j0 = (kt) * RA_KEYS;                                   \
    issue_rows(ks + slot * RA_KEYS * RA_ROW, RA_ROW, kb, k_ld, j0, n, RA_KEYS, 8, tid);        \
    issue_rows(band + slot * RA_BAND * RA_ROW, RA_ROW, rb, k_ld, n - 1 + j0 - i0 - 63,         \
               2 * n - 1, RA_BAND, 8, tid);                                                   \
    issue_rows(vs + slot * RA_KEYS * RA_VROW_MAX, vrow, vb, v_ld, j0, n, RA_KEYS, v_chunks,    \
               tid);                                                                          \
    if (tid < RA_KEYS) mask[slot * RA_KEYS + tid] = j0 + tid < n ? 0.0f : -1e30f;             \
  }
  RA_ISSUE(0)
  cp_async_commit();
  // ldmatrix.x4 lane addressing: K and band rows as in the masked kernel (b0, b1 of two 8-row
  // blocks); V rows (keys) for .trans: matrices (keys 0-7 | 8-15) x (dims 0-7 | 8-15).
  const int lm_row = ((lane >> 4) << 3) + (lane & 7), lm_chunk = (lane >> 3) & 1;
  const int lv_row = (((lane >> 3) & 1) << 3) + (lane & 7), lv_chunk = lane >> 4;
  __local float* my_skew = skew + warp * 16 * RA_SKEW_ROW;
  const int band0 = 48 - 16 * warp;

  for (int kt = 0; kt < tiles; ++kt) {
    CP_ASYNC_WAIT(0);
    barrier(CLK_LOCAL_MEM_FENCE);  // tile kt everywhere; the other slot and the skew are free
    if (kt + 1 < tiles) RA_ISSUE(kt + 1)
    cp_async_commit();
    const int slot = kt % RA_STAGES;
    __local const uint4* kslot = ks + slot * RA_KEYS * RA_ROW;
    __local const uint4* bslot = band + slot * RA_BAND * RA_ROW;
    __local const uint4* vslot = vs + slot * RA_KEYS * RA_VROW_MAX;

    {  // B = (Q + v) band^T over the warp's 80 band rows, into the skew tile.
      float rel[10][4];
#pragma unroll
      for (int j = 0; j < 10; ++j) rel[j][0] = rel[j][1] = rel[j][2] = rel[j][3] = 0.0f;
#pragma unroll
      for (int st = 0; st < 4; ++st) {
#pragma unroll
        for (int jp = 0; jp < 5; ++jp) {
          uint rbf[4];
          ldmatrix_x4(bslot + (band0 + jp * 16 + lm_row) * RA_ROW + st * 2 + lm_chunk, rbf);
          mma_f16(rel[2 * jp], qp[st][0], qp[st][1], qp[st][2], qp[st][3], rbf[0], rbf[1]);
          mma_f16(rel[2 * jp + 1], qp[st][0], qp[st][1], qp[st][2], qp[st][3], rbf[2], rbf[3]);
        }
      }
      store_skew(rel, my_skew, g, t);
    }
    // S = (Q + u) K^T, 8 tiles of 8 keys.
    float s[8][4];
#pragma unroll
    for (int j = 0; j < 8; ++j) s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.0f;
#pragma unroll
    for (int st = 0; st < 4; ++st) {
#pragma unroll
      for (int jp = 0; jp < 4; ++jp) {
        uint kf[4];
        ldmatrix_x4(kslot + (jp * 16 + lm_row) * RA_ROW + st * 2 + lm_chunk, kf);
        mma_f16(s[2 * jp], qc[st][0], qc[st][1], qc[st][2], qc[st][3], kf[0], kf[1]);
        mma_f16(s[2 * jp + 1], qc[st][0], qc[st][1], qc[st][2], qc[st][3], kf[2], kf[3]);
      }
    }
    warp_sync();  // the warp's skew tile is written
    add_skewed(s, my_skew, g, t);
    online_softmax_tile(s, mask + slot * RA_KEYS, t, &m0, &m8, &l0, &l8, o, RA_DV_MAX / 8, 0);
    // O += P V: k-step kk covers keys 16 kk .. 16 kk + 15, i.e. S tiles 2 kk and 2 kk + 1.
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      const uint a0 = pack_half2(s[2 * kk][0], s[2 * kk][1]);
      const uint a1 = pack_half2(s[2 * kk][2], s[2 * kk][3]);
      const uint a2 = pack_half2(s[2 * kk + 1][0], s[2 * kk + 1][1]);
      const uint a3 = pack_half2(s[2 * kk + 1][2], s[2 * kk + 1][3]);
#pragma unroll
      for (int ip = 0; ip < RA_DV_MAX / 16; ++ip) {
        if (ip * 16 < dv) {
          uint vf[4];
          ldmatrix_x4_trans(vslot + (kk * 16 + lv_row) * vrow + ip * 2 + lv_chunk, vf);
          mma_f16(o[2 * ip], a0, a1, a2, a3, vf[0], vf[1]);
          mma_f16(o[2 * ip + 1], a0, a1, a2, a3, vf[2], vf[3]);
        }
      }
    }
  }
  CP_ASYNC_WAIT(0);
#undef RA_ISSUE
  const int ld_out = heads * dv;
  store_attention_rows(o, RA_DV_MAX / 8, dv, l0, l8, q0 + g, n,
                       out + (long)b * n * ld_out + h * dv + 2 * t, ld_out);
}
