// NVIDIA-only fused masked attention on tf32 tensor cores, for stages that compute in fp32 with
// TF32 allowed (TensorRT's and PyTorch's TF32 modes). Built with gemm_mma_nvidia.cl (mma_tf32,
// to_tf32), gemm_pipelined.cl (cp_async16, ldmatrix_x4) and attention_mma_nvidia.cl
// (shfl_xor, online_softmax_tile, store_attention_rows); head size 64. The loop is the f16 kernel's (FlashAttention-2: Q in registers,
// online softmax in fp32), with three differences that tf32's m16n8k8 fragments bring:
// - K and V^T tiles are fp32 (256-byte rows, padded to 272 so the 8 rows of an ldmatrix phase
//   hit 8 bank groups), packed once per call by attention_pack_tf32 already rounded to tf32;
//   the ring has 2 stages (70 KB with P's tile: two work-groups per SM);
// - ldmatrix's 8 x 8 b16 matrices are 8 x 4 fp32, exactly m16n8k8's fragments, so K and V^T
//   fragments come by ldmatrix.x4 as for f16;
// - P's accumulator layout (row g, keys 2t, 2t + 1) is not tf32's A layout (row g, keys t and
//   t + 4): each warp writes its 16 x 64 P tile to local memory and reads it back by ldmatrix,
//   rounding to tf32 in registers.
#define FT_QUERIES 64
#define FT_THREADS 128
#define FT_KEYS 64
#define FT_DH 64
#define FT_ROW 17  // 16-byte chunks per local row: 16 of data (64 fp32) + 1 of padding
#define FT_STAGES 2
#define FT_TILE (FT_KEYS * FT_ROW)

// One work-group per 64 keys of one (batch, head): kf[bh][key][d], vtf[bh][d][key], as tf32 bit
// patterns; keys past n are zeros up to n_pad.
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void attention_pack_tf32(__global const float* k, __global const float* v, int n, int n_pad,
                         int heads, int ld_k, int ld_v, int k_col, int v_col,
                         __global uint* kf, __global uint* vtf) {
  __local float tile[64 * 65];
  const int tid = get_local_id(0);
  const int k0 = get_group_id(0) * 64, bh = get_group_id(1), b = bh / heads, h = bh % heads;
  for (int i = tid; i < 64 * 64; i += 256) {
    const int key = i >> 6, d = i & 63;
    const bool in = k0 + key < n;
    const long row = (long)(b * n + k0 + key);
    kf[((long)bh * n_pad + k0 + key) * FT_DH + d] =
        to_tf32(in ? k[row * ld_k + k_col + h * FT_DH + d] : 0.0f);
    tile[key * 65 + d] = in ? v[row * ld_v + v_col + h * FT_DH + d] : 0.0f;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = tid; i < 64 * 64; i += 256) {
    const int d = i >> 6, key = i & 63;
    vtf[((long)bh * FT_DH + d) * n_pad + k0 + key] = to_tf32(tile[key * 65 + d]);
  }
}

inline void warp_sync(void) {
  asm volatile("bar.warp.sync 0xffffffff;" ::: "memory");
}

__kernel __attribute__((reqd_work_group_size(FT_THREADS, 1, 1)))
void attention_tf32_mma(__global const float* q, __global const uint4* kf,
                        __global const uint4* vtf, __global const float* key_bias, int has_bias,
                        int n, int n_pad, int heads, int ld_q, int ld_out, int q_col, float scale,
                        __global float* out) {
  __local uint4 ks[FT_STAGES * FT_TILE];
  __local uint4 vs[FT_STAGES * FT_TILE];
  __local uint4 ps[FT_THREADS / 32 * 16 * FT_ROW];  // each warp's 16 x 64 P tile
  __local float bias_tile[FT_STAGES * FT_KEYS];
  const int tid = get_local_id(0), lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int bh = get_group_id(1), b = bh / heads, h = bh % heads;
  const int q0 = get_group_id(0) * FT_QUERIES + warp * 16;
  const float qscale = scale * 1.4426950408889634f;  // log2(e): softmax by exp2

  // Q fragments for the warp's 16 rows: 8 k-steps of 8 dimensions (a0 (g, t), a1 (g + 8, t),
  // a2 (g, t + 4), a3 (g + 8, t + 4)).
  uint qa[8][4];
  {
    const int r0 = min(q0 + g, n - 1), r8 = min(q0 + g + 8, n - 1);
    __global const float* p0 = q + (long)(b * n + r0) * ld_q + q_col + h * FT_DH;
    __global const float* p8 = q + (long)(b * n + r8) * ld_q + q_col + h * FT_DH;
#pragma unroll
    for (int s = 0; s < 8; ++s) {
      qa[s][0] = to_tf32(p0[s * 8 + t] * qscale);
      qa[s][1] = to_tf32(p8[s * 8 + t] * qscale);
      qa[s][2] = to_tf32(p0[s * 8 + t + 4] * qscale);
      qa[s][3] = to_tf32(p8[s * 8 + t + 4] * qscale);
    }
  }
  float o[8][4];
#pragma unroll
  for (int i = 0; i < 8; ++i) o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.0f;
  float m0 = -1e30f, m8 = -1e30f, l0 = 0.0f, l8 = 0.0f;  // rows g and g + 8

  const int tiles = n_pad / FT_KEYS;
  // Tile kt into slot kt % FT_STAGES: 1024 16-byte pieces of each of K and V^T (8 per item) and
  // the 64 key biases.
#define FT_ISSUE(kt)                                                                          \
  {                                                                                           \
    const int slot = (kt) % FT_STAGES, kbase = (kt) * FT_KEYS;                                \
    for (int i = 0; i < 1024 / FT_THREADS; ++i) {                                             \
      const int piece = tid + i * FT_THREADS, row = piece >> 4, col = piece & 15;             \
      cp_async16(ks + slot * FT_TILE + row * FT_ROW + col,                                    \
                 (__global const uchar*)(kf + ((long)bh * n_pad + kbase + row) * 16 + col), 16); \
      cp_async16(vs + slot * FT_TILE + row * FT_ROW + col,                                    \
                 (__global const uchar*)(vtf + ((long)bh * FT_DH + row) * (n_pad / 4) +        \
                                         kbase / 4 + col),                                    \
                 16);                                                                         \
    }                                                                                         \
    if (tid < FT_KEYS) {                                                                      \
      const int key = kbase + tid;                                                            \
      bias_tile[slot * FT_KEYS + tid] =                                                       \
          key < n ? (has_bias ? key_bias[b * n + key] * 1.4426950408889634f : 0.0f) : -1e30f; \
    }                                                                                         \
  }
  FT_ISSUE(0)
  cp_async_commit();
  const int lm_row = ((lane >> 4) << 3) + (lane & 7), lm_chunk = (lane >> 3) & 1;
  __local uint4* pw = ps + warp * 16 * FT_ROW;
  __local float* pf = (__local float*)pw;

  for (int kt = 0; kt < tiles; ++kt) {
    CP_ASYNC_WAIT(0);
    barrier(CLK_LOCAL_MEM_FENCE);  // tile kt everywhere; slot (kt + 1) % 2 is free
    if (kt + 1 < tiles) FT_ISSUE(kt + 1)
    cp_async_commit();
    __local const uint4* kslot = ks + (kt % FT_STAGES) * FT_TILE;
    __local const uint4* vslot = vs + (kt % FT_STAGES) * FT_TILE;
    __local const float* bslot = bias_tile + (kt % FT_STAGES) * FT_KEYS;

    float s[8][4];
#pragma unroll
    for (int j = 0; j < 8; ++j) s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.0f;
#pragma unroll
    for (int st = 0; st < 8; ++st) {
#pragma unroll
      for (int jp = 0; jp < 4; ++jp) {
        uint kb[4];
        ldmatrix_x4(kslot + (jp * 16 + lm_row) * FT_ROW + st * 2 + lm_chunk, kb);
        mma_tf32(s[2 * jp], qa[st][0], qa[st][1], qa[st][2], qa[st][3], kb[0], kb[1]);
        mma_tf32(s[2 * jp + 1], qa[st][0], qa[st][1], qa[st][2], qa[st][3], kb[2], kb[3]);
      }
    }
    online_softmax_tile(s, bslot, t, &m0, &m8, &l0, &l8, o, 8, 0);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      vstore2((float2)(s[j][0], s[j][1]), 0, pf + g * (FT_ROW * 4) + j * 8 + 2 * t);
      vstore2((float2)(s[j][2], s[j][3]), 0, pf + (g + 8) * (FT_ROW * 4) + j * 8 + 2 * t);
    }
    warp_sync();  // the warp's P tile is written
    // O += P V: k-step kk covers keys 8 kk .. 8 kk + 7.
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      uint pa[4];
      ldmatrix_x4(pw + (lane & 15) * FT_ROW + kk * 2 + (lane >> 4), pa);
#pragma unroll
      for (int e = 0; e < 4; ++e) pa[e] = to_tf32(as_float(pa[e]));
#pragma unroll
      for (int ip = 0; ip < 4; ++ip) {
        uint vb[4];
        ldmatrix_x4(vslot + (ip * 16 + lm_row) * FT_ROW + kk * 2 + lm_chunk, vb);
        mma_tf32(o[2 * ip], pa[0], pa[1], pa[2], pa[3], vb[0], vb[1]);
        mma_tf32(o[2 * ip + 1], pa[0], pa[1], pa[2], pa[3], vb[2], vb[3]);
      }
    }
    warp_sync();  // every lane has read P before the next tile overwrites it
  }
  CP_ASYNC_WAIT(0);
#undef FT_ISSUE
  store_attention_rows(o, 8, FT_DH, l0, l8, q0 + g, n, out + (long)b * n * ld_out + h * FT_DH + 2 * t,
                       ld_out);
}
