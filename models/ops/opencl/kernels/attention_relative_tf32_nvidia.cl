// NVIDIA-only Transformer-XL relative attention on tf32 tensor cores, for the stages that
// compute in fp32 with TF32 allowed. Built after attention_relative_nvidia.cl, whose band and
// skew scheme it follows (and whose helpers issue_rows, store_skew and add_skewed it uses);
// what tf32's m16n8k8 fragments change:
// - q, k, v and r are read as fp32 in place (no half copies) and rounded to tf32 in registers;
// - tiles are fp32, twice the bytes: K 17 KB, the band 35 KB, V 51 KB at dv 192. There is room
//   for one of each, so the loads are split in two commit groups: the next tile's K and band
//   load during this tile's P V, its V during the next tile's S;
// - (Q + v) is kept as a per-warp tf32 tile in local memory (ldmatrix per k-step) rather than in
//   registers, where it would push O (96 registers at dv 192) into spills;
// - V's B fragments (key t | t + 4, dimension g) are 32-bit words, which ldmatrix.trans cannot
//   transpose: they are read one by one from row-major V rows padded to dv + 8 floats, so the
//   four keys a load touches are 8 banks apart;
// - P's accumulator layout is not tf32's A layout: it goes through the warp's skew tile, whose
//   relative term has been consumed by then, and comes back by ldmatrix.
#define RT_ROW 17  // chunks per K, band or Q row: 16 of data (64 fp32) + 1 of padding

__kernel __attribute__((reqd_work_group_size(RA_THREADS, 1, 1)))
void rel_attention_tf32_mma(__global const float* q, __global const uint4* k4,
                            __global const uint4* v4, __global const uint4* r4,
                            __global const float* content_bias, __global const float* pos_bias,
                            int n, int heads, int dv, __global float* out) {
  __local uint4 ks[RA_KEYS * RT_ROW];
  __local uint4 band[RA_BAND * RT_ROW];
  __local uint4 vs[RA_KEYS * (RA_DV_MAX / 4 + 2)];
  __local uint4 qps[RA_THREADS / 32 * 16 * RT_ROW];
  __local float skew[RA_THREADS / 32 * 16 * RA_SKEW_ROW];
  __local float mask[RA_KEYS];
  const int tid = get_local_id(0), lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int bh = get_group_id(1), b = bh / heads, h = bh % heads;
  const int i0 = get_group_id(0) * RA_QUERIES, q0 = i0 + warp * 16;
  const int v_chunks = dv / 4, vpitch = dv + 8;  // V row: dv floats + 8 of padding
  const long k_ld = heads * RA_DK / 4, v_ld = (long)heads * dv / 4;  // in 16-byte chunks
  const float log2e = 1.4426950408889634f;
  __global const float* u = content_bias + h * RA_DK;
  __global const float* pv = pos_bias + h * RA_DK;

  // (q + u) fragments in registers: 8 k-steps of 8 dimensions (a0 (g, t), a1 (g + 8, t),
  // a2 (g, t + 4), a3 (g + 8, t + 4)); (q + v) into the warp's local tile.
  uint qc[8][4];
  __local uint4* qpw = qps + warp * 16 * RT_ROW;
  {
    const int r0 = min(q0 + g, n - 1), r8 = min(q0 + g + 8, n - 1);
    __global const float* p0 = q + ((long)b * n + r0) * heads * RA_DK + h * RA_DK;
    __global const float* p8 = q + ((long)b * n + r8) * heads * RA_DK + h * RA_DK;
#pragma unroll
    for (int s = 0; s < 8; ++s) {
      const int d = s * 8 + t;
      qc[s][0] = to_tf32((p0[d] + u[d]) * log2e);
      qc[s][1] = to_tf32((p8[d] + u[d]) * log2e);
      qc[s][2] = to_tf32((p0[d + 4] + u[d + 4]) * log2e);
      qc[s][3] = to_tf32((p8[d + 4] + u[d + 4]) * log2e);
    }
    __local uint* qpf = (__local uint*)qpw;
    for (int e = lane; e < 16 * RA_DK; e += 32) {
      const int r = e / RA_DK, d = e - r * RA_DK, row = min(q0 + r, n - 1);
      qpf[r * RT_ROW * 4 + d] =
          to_tf32((q[((long)b * n + row) * heads * RA_DK + h * RA_DK + d] + pv[d]) * log2e);
    }
  }
  float o[RA_DV_MAX / 8][4];
#pragma unroll
  for (int i = 0; i < RA_DV_MAX / 8; ++i) o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.0f;
  float m0 = -1e30f, m8 = -1e30f, l0 = 0.0f, l8 = 0.0f;  // rows g and g + 8

  __global const uint4* kb = k4 + (long)b * n * k_ld + h * (RA_DK / 4);
  __global const uint4* vb = v4 + (long)b * n * v_ld + h * (dv / 4);
  __global const uint4* rb = r4 + h * (RA_DK / 4);
  const int tiles = (n + RA_KEYS - 1) / RA_KEYS;
#define RT_ISSUE_KEYS(kt)                                                                  \
  {                                                                                        \
    const int j0 = (kt) * RA_KEYS;                                                         \
    issue_rows(ks, RT_ROW, kb, k_ld, j0, n, RA_KEYS, 16, tid);                             \
    issue_rows(band, RT_ROW, rb, k_ld, n - 1 + j0 - i0 - 63, 2 * n - 1, RA_BAND, 16, tid); \
    if (tid < RA_KEYS) mask[tid] = j0 + tid < n ? 0.0f : -1e30f;                           \
    cp_async_commit();                                                                     \
  }
#define RT_ISSUE_VALUES(kt)                                                                \
  {                                                                                        \
    issue_rows(vs, vpitch / 4, vb, v_ld, (kt) * RA_KEYS, n, RA_KEYS, v_chunks, tid);        \
    cp_async_commit();                                                                     \
  }
  RT_ISSUE_KEYS(0)
  RT_ISSUE_VALUES(0)
  const int lm_row = ((lane >> 4) << 3) + (lane & 7), lm_chunk = (lane >> 3) & 1;
  __local float* my_skew = skew + warp * 16 * RA_SKEW_ROW;
  __local const float* vf = (__local const float*)vs;
  const int band0 = 48 - 16 * warp;

  for (int kt = 0; kt < tiles; ++kt) {
    CP_ASYNC_WAIT(1);              // this tile's K and band (its V may still be loading)
    barrier(CLK_LOCAL_MEM_FENCE);  // ... everywhere, and the (q + v) tiles written
    {  // B = (Q + v) band^T over the warp's 80 band rows, into the skew tile.
      float rel[10][4];
#pragma unroll
      for (int j = 0; j < 10; ++j) rel[j][0] = rel[j][1] = rel[j][2] = rel[j][3] = 0.0f;
#pragma unroll
      for (int st = 0; st < 8; ++st) {
        uint qa[4];
        ldmatrix_x4(qpw + (lane & 15) * RT_ROW + st * 2 + (lane >> 4), qa);
#pragma unroll
        for (int jp = 0; jp < 5; ++jp) {
          uint rf[4];
          ldmatrix_x4(band + (band0 + jp * 16 + lm_row) * RT_ROW + st * 2 + lm_chunk, rf);
#pragma unroll
          for (int e = 0; e < 4; ++e) rf[e] = to_tf32(as_float(rf[e]));
          mma_tf32(rel[2 * jp], qa[0], qa[1], qa[2], qa[3], rf[0], rf[1]);
          mma_tf32(rel[2 * jp + 1], qa[0], qa[1], qa[2], qa[3], rf[2], rf[3]);
        }
      }
      store_skew(rel, my_skew, g, t);
    }
    float s[8][4];
#pragma unroll
    for (int j = 0; j < 8; ++j) s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.0f;
#pragma unroll
    for (int st = 0; st < 8; ++st) {
#pragma unroll
      for (int jp = 0; jp < 4; ++jp) {
        uint kf[4];
        ldmatrix_x4(ks + (jp * 16 + lm_row) * RT_ROW + st * 2 + lm_chunk, kf);
#pragma unroll
        for (int e = 0; e < 4; ++e) kf[e] = to_tf32(as_float(kf[e]));
        mma_tf32(s[2 * jp], qc[st][0], qc[st][1], qc[st][2], qc[st][3], kf[0], kf[1]);
        mma_tf32(s[2 * jp + 1], qc[st][0], qc[st][1], qc[st][2], qc[st][3], kf[2], kf[3]);
      }
    }
    warp_sync();  // the warp's skew tile is written
    add_skewed(s, my_skew, g, t);
    online_softmax_tile(s, mask, t, &m0, &m8, &l0, &l8, o, RA_DV_MAX / 8, 0);
    warp_sync();  // every lane has read the skew tile: P goes there
    __local float* pf = my_skew;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      vstore2((float2)(s[j][0], s[j][1]), 0, pf + g * RA_SKEW_ROW + j * 8 + 2 * t);
      vstore2((float2)(s[j][2], s[j][3]), 0, pf + (g + 8) * RA_SKEW_ROW + j * 8 + 2 * t);
    }
    CP_ASYNC_WAIT(0);              // this tile's V
    barrier(CLK_LOCAL_MEM_FENCE);  // ... everywhere; K, band and mask are free, P is written
    if (kt + 1 < tiles) RT_ISSUE_KEYS(kt + 1)
    // O += P V: k-step kk covers keys 8 kk .. 8 kk + 7.
    __local const uint4* pw = (__local const uint4*)my_skew;
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      uint pa[4];
      ldmatrix_x4(pw + (lane & 15) * (RA_SKEW_ROW / 4) + kk * 2 + (lane >> 4), pa);
#pragma unroll
      for (int e = 0; e < 4; ++e) pa[e] = to_tf32(as_float(pa[e]));
      __local const float* v0 = vf + (kk * 8 + t) * vpitch + g;
#pragma unroll
      for (int ip = 0; ip < RA_DV_MAX / 8; ++ip) {
        if (ip * 8 < dv)
          mma_tf32(o[ip], pa[0], pa[1], pa[2], pa[3], to_tf32(v0[ip * 8]),
                   to_tf32(v0[4 * vpitch + ip * 8]));
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // V and P consumed
    if (kt + 1 < tiles) RT_ISSUE_VALUES(kt + 1)
  }
  CP_ASYNC_WAIT(0);
#undef RT_ISSUE_KEYS
#undef RT_ISSUE_VALUES
  const int ld_out = heads * dv;
  store_attention_rows(o, RA_DV_MAX / 8, dv, l0, l8, q0 + g, n,
                       out + (long)b * n * ld_out + h * dv + 2 * t, ld_out);
}
