// The relative attention kernel on tensor cores (attention_relative_nvidia.cl says how it
// works), one body for every precision: gemm_mma.cpp includes it after a precision's row of the
// table (attention_f16_nvidia.cl, attention_tf32_nvidia.cl: the AT_ names) with RA_NAME,
// AT_FAST 0 and two choices that the tiles' size brings:
// - RA_STAGES 2 (f16): K, the band and V of the next tile load as one commit group into a
//   2-stage ring (53 KB a stage; 128 KB in all with the skew tiles: one group per SM);
//   RA_STAGES 1 (tf32: fp32 tiles, twice the bytes, room for one of each): two commit groups,
//   the next tile's K and band loading during this tile's P V, its V during the next tile's S;
// - RA_QP_LOCAL 0: (Q + v)'s fragments stay in registers; 1 (tf32): they are kept as a per-warp
//   tile in local memory (ldmatrix per k step), where in registers they would push O (96
//   registers at dv 192) into spills.
// Operands are read in place in the precision's format (the host makes half copies of k, v and
// r for f16; tf32 rounds fp32 in registers by AT_FRAG), with row strides heads x 64 and
// heads x dv, 16-byte aligned: rows past n, or band rows outside [0, 2n - 2], are zero-filled
// by cp.async and masked. V tiles are row-major (key rows) and feed P V through AT_V_ROWS_FRAG.
#define RA_CHUNKS (RA_DK / AT_EPC)  // 16-byte chunks of data a K, band or Q row
#define RA_ROW (RA_CHUNKS + 1)      // chunks per local K, band or Q row: + 1 of padding
#define RA_VROW_MAX AT_V_PITCH(RA_DV_MAX)
#define RA_KSTEPS (RA_DK / AT_KSTEP)

// q, content_bias, pos_bias: fp32; out: fp32, or f16 where half_out is 1. k4, v4: [batch, n, heads x 64 | dv]; r4:
// [2n - 1, heads x 64], in the precision's operand format (half bits or fp32).
__kernel __attribute__((reqd_work_group_size(RA_THREADS, 1, 1)))
void RA_NAME(__global const float* q, __global const uint4* k4, __global const uint4* v4,
             __global const uint4* r4, __global const float* content_bias,
             __global const float* pos_bias, int n, int heads, int dv, __global float* out,
             int half_out) {
  __local uint4 ks[RA_STAGES * RA_KEYS * RA_ROW];
  __local uint4 band[RA_STAGES * RA_BAND * RA_ROW];
  __local uint4 vs[RA_STAGES * RA_KEYS * RA_VROW_MAX];
#if RA_QP_LOCAL
  __local uint4 qps[RA_THREADS / 32 * 16 * RA_ROW];
#endif
  __local float skew[RA_THREADS / 32 * 16 * RA_SKEW_ROW];
  __local float mask[RA_STAGES * RA_KEYS];
  const int tid = get_local_id(0), lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int bh = get_group_id(1), b = bh / heads, h = bh % heads;
  const int i0 = get_group_id(0) * RA_QUERIES, q0 = i0 + warp * 16;
  const int vrow = AT_V_PITCH(dv), v_chunks = dv / AT_EPC;
  const long k_ld = heads * RA_DK / AT_EPC, v_ld = (long)heads * dv / AT_EPC;  // in chunks
  const float log2e = 1.4426950408889634f;  // softmax by exp2
  __global const float* u = content_bias + h * RA_DK;
  __global const float* pv = pos_bias + h * RA_DK;

  // (q + u) fragments for the warp's 16 rows, RA_KSTEPS k steps; (q + v) likewise, or into the
  // warp's local tile.
  uint qc[RA_KSTEPS][4];
#if RA_QP_LOCAL
  __local uint4* qpw = qps + warp * 16 * RA_ROW;
#else
  uint qp[RA_KSTEPS][4];
#endif
  {
    const int r0 = min(q0 + g, n - 1), r8 = min(q0 + g + 8, n - 1);
    __global const float* p0 = q + ((long)b * n + r0) * heads * RA_DK + h * RA_DK;
    __global const float* p8 = q + ((long)b * n + r8) * heads * RA_DK + h * RA_DK;
#define RA_QC(row, d) ((((row) ? p8 : p0)[d] + u[d]) * log2e)
#define RA_QP(row, d) ((((row) ? p8 : p0)[d] + pv[d]) * log2e)
#pragma unroll
    for (int s = 0; s < RA_KSTEPS; ++s) {
      AT_A_FRAG(qc[s], s, t, RA_QC)
#if !RA_QP_LOCAL
      AT_A_FRAG(qp[s], s, t, RA_QP)
#endif
    }
#undef RA_QC
#undef RA_QP
#if RA_QP_LOCAL
    __local uint* qpf = (__local uint*)qpw;
    for (int e = lane; e < 16 * RA_DK; e += 32) {
      const int r = e / RA_DK, d = e - r * RA_DK, row = min(q0 + r, n - 1);
      const float x = q[((long)b * n + row) * heads * RA_DK + h * RA_DK + d];
      qpf[r * RA_ROW * 4 + d] = AT_FRAG(as_uint((x + pv[d]) * log2e));
    }
#endif
  }
  float o[RA_DV_MAX / 8][4];
#pragma unroll
  for (int i = 0; i < RA_DV_MAX / 8; ++i) o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.0f;
  float m0 = -1e30f, m8 = -1e30f, l0 = 0.0f, l8 = 0.0f;  // rows g and g + 8

  __global const uint4* kb = k4 + (long)b * n * k_ld + h * RA_CHUNKS;
  __global const uint4* vb = v4 + (long)b * n * v_ld + h * (dv / AT_EPC);
  __global const uint4* rb = r4 + h * RA_CHUNKS;
  const int tiles = (n + RA_KEYS - 1) / RA_KEYS;
  // Tile kt's K, band and key mask, and its V, into slot kt % RA_STAGES.
#define RA_ISSUE_KEYS(kt)                                                                     \
  {                                                                                           \
    const int slot = (kt) % RA_STAGES, j0 = (kt) * RA_KEYS;                                   \
    issue_rows(ks + slot * RA_KEYS * RA_ROW, RA_ROW, kb, k_ld, j0, n, RA_KEYS, RA_CHUNKS,     \
               tid);                                                                          \
    issue_rows(band + slot * RA_BAND * RA_ROW, RA_ROW, rb, k_ld, n - 1 + j0 - i0 - 63,        \
               2 * n - 1, RA_BAND, RA_CHUNKS, tid);                                           \
    if (tid < RA_KEYS) mask[slot * RA_KEYS + tid] = j0 + tid < n ? 0.0f : -1e30f;             \
  }
#define RA_ISSUE_VALUES(kt)                                                                   \
  issue_rows(vs + ((kt) % RA_STAGES) * RA_KEYS * RA_VROW_MAX, vrow, vb, v_ld,                 \
             (kt) * RA_KEYS, n, RA_KEYS, v_chunks, tid);
  RA_ISSUE_KEYS(0)
#if RA_STAGES == 1
  cp_async_commit();
#endif
  RA_ISSUE_VALUES(0)
  cp_async_commit();
  // ldmatrix.x4 lane addressing of K and band rows, as in the masked kernel (b0, b1 of two
  // 8-row blocks).
  const int lm_row = ((lane >> 4) << 3) + (lane & 7), lm_chunk = (lane >> 3) & 1;
  __local float* my_skew = skew + warp * 16 * RA_SKEW_ROW;
  const int band0 = 48 - 16 * warp;

  for (int kt = 0; kt < tiles; ++kt) {
#if RA_STAGES == 1
    CP_ASYNC_WAIT(1);              // this tile's K and band (its V may still be loading)
    barrier(CLK_LOCAL_MEM_FENCE);  // ... everywhere, and the (q + v) tiles written
#else
    CP_ASYNC_WAIT(0);
    barrier(CLK_LOCAL_MEM_FENCE);  // tile kt everywhere; the other slot and the skew are free
    if (kt + 1 < tiles) {
      RA_ISSUE_KEYS(kt + 1)
      RA_ISSUE_VALUES(kt + 1)
    }
    cp_async_commit();
#endif
    const int slot = kt % RA_STAGES;
    __local const uint4* kslot = ks + slot * RA_KEYS * RA_ROW;
    __local const uint4* bslot = band + slot * RA_BAND * RA_ROW;
    __local const uint4* vslot = vs + slot * RA_KEYS * RA_VROW_MAX;

    {  // B = (Q + v) band^T over the warp's 80 band rows, into the skew tile.
      float rel[10][4];
#pragma unroll
      for (int j = 0; j < 10; ++j) rel[j][0] = rel[j][1] = rel[j][2] = rel[j][3] = 0.0f;
#pragma unroll
      for (int st = 0; st < RA_KSTEPS; ++st) {
#if RA_QP_LOCAL
        uint qa[4];
        ldmatrix_x4(qpw + (lane & 15) * RA_ROW + st * 2 + (lane >> 4), qa);
#define RA_QPA qa
#else
#define RA_QPA qp[st]
#endif
#pragma unroll
        for (int jp = 0; jp < 5; ++jp) {
          uint rf[4];
          FA_LDM_B(rf, bslot, band0 + jp * 16, RA_ROW, st);
#pragma unroll
          for (int e = 0; e < 4; ++e) rf[e] = AT_FRAG(rf[e]);
          FA_MMA_PAIR(rel, jp, RA_QPA, rf)
        }
#undef RA_QPA
      }
      store_skew(rel, my_skew, g, t);
    }
    // S = (Q + u) K^T, 8 tiles of 8 keys.
    float s[8][4];
#pragma unroll
    for (int j = 0; j < 8; ++j) s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.0f;
#pragma unroll
    for (int st = 0; st < RA_KSTEPS; ++st) {
#pragma unroll
      for (int jp = 0; jp < 4; ++jp) {
        uint kf[4];
        FA_LDM_B(kf, kslot, jp * 16, RA_ROW, st);
#pragma unroll
        for (int e = 0; e < 4; ++e) kf[e] = AT_FRAG(kf[e]);
        FA_MMA_PAIR(s, jp, qc[st], kf)
      }
    }
    warp_sync();  // the warp's skew tile is written
    add_skewed(s, my_skew, g, t);
    online_softmax_tile(s, mask + slot * RA_KEYS, t, &m0, &m8, &l0, &l8, o, RA_DV_MAX / 8,
                        AT_FAST);
#if AT_P_IN_LOCAL
    warp_sync();  // every lane has read the skew tile: P goes there
    AT_P_STASH(s, my_skew, RA_SKEW_ROW / 4, g, t)
#endif
#if RA_STAGES == 1
    CP_ASYNC_WAIT(0);              // this tile's V
    barrier(CLK_LOCAL_MEM_FENCE);  // ... everywhere; K, band and mask are free, P is written
    if (kt + 1 < tiles) {
      RA_ISSUE_KEYS(kt + 1)
      cp_async_commit();
    }
#endif
    // O += P V: key step kk covers keys AT_KSTEP kk .. AT_KSTEP (kk + 1) - 1.
    __local const uint4* pw = (__local const uint4*)my_skew;
#pragma unroll
    for (int kk = 0; kk < RA_KEYS / AT_KSTEP; ++kk) {
      uint pa[4];
      AT_P_FRAG(pa, s, kk, pw, RA_SKEW_ROW / 4, lane)
      __local const float* v_at = AT_V_ROWS_AT(vslot, vrow, kk, lane);
#pragma unroll
      for (int ip = 0; ip < RA_DV_MAX / 16; ++ip) {
        if (ip * 16 < dv) {
          uint vf[4];
          AT_V_ROWS_FRAG(vf, v_at, vrow, ip);
          FA_MMA_PAIR(o, ip, pa, vf)
        }
      }
    }
#if RA_STAGES == 1
    barrier(CLK_LOCAL_MEM_FENCE);  // V and P consumed
    if (kt + 1 < tiles) {
      RA_ISSUE_VALUES(kt + 1)
      cp_async_commit();
    }
#endif
  }
  CP_ASYNC_WAIT(0);
#undef RA_ISSUE_KEYS
#undef RA_ISSUE_VALUES
  const int ld_out = heads * dv;
  store_attention_rows(o, RA_DV_MAX / 8, dv, l0, l8, q0 + g, n, out,
                       (long)b * n * ld_out + h * dv + 2 * t, ld_out, half_out);
}

#undef RA_CHUNKS
#undef RA_ROW
#undef RA_VROW_MAX
#undef RA_KSTEPS
