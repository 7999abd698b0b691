// The masked attention kernel on tensor cores (attention_mma_nvidia.cl says how it works), one
// body for every precision: gemm_mma.cpp includes it after a precision's row of the table
// (attention_f16_nvidia.cl, attention_tf32_nvidia.cl: the AT_ names) with FA_NAME, FA_MBLK
// (16-query blocks a warp: 1 or 2), FA_STAGES (the cp.async ring: 3 for f16, 2 for tf32's tiles
// of twice the bytes), FA_DIRECT and AT_FAST (0 or 1) defined. A work-group owns
// FA_QUERIES = 64 FA_MBLK queries of one (batch, head).
//
// FA_DIRECT 1 (f16 only, issue 27): K and V are read where the QKV GEMM wrote them, as half rows
// ([B n, ld] with the head's 64 columns at k_col + 64 h), and no packing pass runs. Both tiles
// keep a row per key in local memory; V's B fragments come by AT_V_ROWS_FRAG (lanes address
// keys, not dimensions). Keys past n are zero-filled by cp.async (src-size 0, from a clamped
// row), as the pack pass wrote zeros there: P is 0 for them, and 0 times whatever followed in
// the buffer could be NaN. AT_FAST 1 converts P by pairs (pack_half2_x2) and takes exp2 as one
// MUFU.EX2 (exp2_ftz). Otherwise K and V^T come packed by the precision's pack kernel, already
// in the mma's operand format (half bits, or fp32 rounded to tf32), so their fragments are used
// as loaded.
#define FA_QUERIES (64 * FA_MBLK)
#define FA_CHUNKS (FA_DH / AT_EPC)  // 16-byte chunks of data a K or V^T row
#define FA_CHUNK_BITS (FA_CHUNKS == 8 ? 3 : 4)
#define FA_ROW (FA_CHUNKS + 1)      // chunks per local row: + 1 of padding, so the 8 rows of
                                    // an ldmatrix phase hit 8 bank groups
#define FA_TILE (FA_KEYS * FA_ROW)  // chunks per K or V^T tile (both are 64 x 64)
#define FA_KSTEPS (FA_DH / AT_KSTEP)
#if FA_STAGES == 3
#define FA_PENDING 1  // FA_STAGES - 2, spelled out: cp.async.wait_group takes a literal
#else
#define FA_PENDING 0
#endif
#define FA_WAIT_(n) CP_ASYNC_WAIT(n)
#define FA_WAIT(n) FA_WAIT_(n)

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
#if AT_P_IN_LOCAL
  __local uint4 ps[FA_THREADS / 32 * 16 * FA_MBLK * FA_ROW];  // each warp's P tiles
#endif
  __local float bias_tile[FA_STAGES * FA_KEYS];
  __local int last_key;  // has_bias 2: the item's last key the mask keeps
  const int tid = get_local_id(0), lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int bh = get_group_id(1), b = bh / heads, h = bh % heads;
  // has_bias 2 (the host's default, STAGEBENCH_ATTENTION_TRIM): the key tiles after the item's
  // last unmasked key are not visited. Their keys carry kMaskedLogit (-1e30, op_types.h), so
  // their weights are exp2(-1.4e30 - m) = 0 exactly and the running max does not move (the
  // rescale is exp2(0) = 1): O and the row sums come out bit for bit as when they are visited.
  // Geneformer pads every cell to the batch's length, a quarter of the keys on average at full
  // size; a row with no unmasked key keeps every tile, as before. The scan's loads are issued
  // before Q's, its barrier after them.
  int my_last = -1;
  if (has_bias == 2) {
    if (tid == 0) last_key = -1;
    for (int j = tid; j < n; j += FA_THREADS)
      if (key_bias[(long)b * n + j] > -1e29f) my_last = j;
  }
  const int q0 = get_group_id(0) * FA_QUERIES + warp * 16 * FA_MBLK;
  const float qscale = scale * 1.4426950408889634f;  // log2(e): softmax by exp2

  // Q fragments for the warp's rows, block mb = rows q0 + 16 mb ..: FA_KSTEPS k steps.
  uint qa[FA_MBLK][FA_KSTEPS][4];
#pragma unroll
  for (int mb = 0; mb < FA_MBLK; ++mb) {
    const int r0 = min(q0 + mb * 16 + g, n - 1), r8 = min(q0 + mb * 16 + g + 8, n - 1);
    const long p0 = (long)(b * n + r0) * ld_q + q_col + h * FA_DH;
    const long p8 = (long)(b * n + r8) * ld_q + q_col + h * FA_DH;
    const int hq = AT_HALF_IO ? halves & ACT_HALF_X : 0;
#define FA_Q(row, d) (act_load(q, ((row) ? p8 : p0) + (d), hq) * qscale)
#pragma unroll
    for (int s = 0; s < FA_KSTEPS; ++s) AT_A_FRAG(qa[mb][s], s, t, FA_Q)
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

  // Tile `kt` into ring slot kt % FA_STAGES: the 16-byte pieces of each of K and V^T (V with
  // FA_DIRECT), and the tile's 64 key biases (log2 units; -1e30 past n).
  int tiles = n_pad / FA_KEYS;
  if (has_bias == 2) {
    barrier(CLK_LOCAL_MEM_FENCE);  // last_key's -1 is stored
    if (my_last >= 0) atomic_max(&last_key, my_last);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (last_key >= 0) tiles = min(tiles, last_key / FA_KEYS + 1);
  }
#define FA_BIAS_TILE(kt)                                                                      \
  if (tid < FA_KEYS) {                                                                        \
    const int key = (kt) * FA_KEYS + tid;                                                     \
    bias_tile[((kt) % FA_STAGES) * FA_KEYS + tid] =                                           \
        key < n ? (has_bias ? key_bias[b * n + key] * 1.4426950408889634f : 0.0f) : -1e30f;   \
  }
#define FA_PIECES (FA_KEYS * FA_CHUNKS)
#if FA_DIRECT
  // Rows of keys past n come from a clamped row with src-size 0: zeros.
  const long k_at = (long)b * n * ld_k + k_col + h * FA_DH;
  const long v_at = (long)b * n * ld_v + v_col + h * FA_DH;
#define FA_K_SRC(kbase, row, col) \
  (k + k_at + (long)min((kbase) + (row), n - 1) * ld_k + (col) * AT_EPC)
#define FA_V_SRC(kbase, row, col) \
  (v + v_at + (long)min((kbase) + (row), n - 1) * ld_v + (col) * AT_EPC)
#define FA_BYTES(kbase, row) ((kbase) + (row) < n ? 16 : 0)
#else
#define FA_K_SRC(kbase, row, col) (kh + ((long)bh * n_pad + (kbase) + (row)) * FA_CHUNKS + (col))
#define FA_V_SRC(kbase, row, col) \
  (vt + ((long)bh * FA_DH + (row)) * (n_pad / AT_EPC) + (kbase) / AT_EPC + (col))
#define FA_BYTES(kbase, row) 16
#endif
#define FA_ISSUE(kt)                                                                          \
  {                                                                                           \
    const int slot = (kt) % FA_STAGES, kbase = (kt) * FA_KEYS;                                \
    for (int i = 0; i < FA_PIECES / FA_THREADS; ++i) {                                        \
      const int piece = tid + i * FA_THREADS, row = piece >> FA_CHUNK_BITS;                  \
      const int col = piece & (FA_CHUNKS - 1), bytes = FA_BYTES(kbase, row);                \
      cp_async16(ks + slot * FA_TILE + row * FA_ROW + col,                                    \
                 (__global const uchar*)FA_K_SRC(kbase, row, col), bytes);                    \
      cp_async16(vt_local + slot * FA_TILE + row * FA_ROW + col,                              \
                 (__global const uchar*)FA_V_SRC(kbase, row, col), bytes);                    \
    }                                                                                         \
    FA_BIAS_TILE(kt)                                                                          \
  }
  for (int st = 0; st < FA_STAGES - 1; ++st) {
    if (st < tiles) FA_ISSUE(st)
    cp_async_commit();
  }
  // Lane -> the row and chunk it addresses for ldmatrix.x4 over two 8-row blocks (keys of K,
  // dimensions of V^T) and one k step: b0, b1 of the first block, then of the second.
  const int lm_row = ((lane >> 4) << 3) + (lane & 7), lm_chunk = (lane >> 3) & 1;
#if AT_P_IN_LOCAL
  __local uint4* pw = ps + warp * 16 * FA_MBLK * FA_ROW;
#else
  __local uint4* pw = 0;  // P stays in registers
#endif

  for (int kt = 0; kt < tiles; ++kt) {
    FA_WAIT(FA_PENDING);  // tile kt has landed (FA_STAGES - 2 later ones may still load)
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
    for (int st = 0; st < FA_KSTEPS; ++st) {
#pragma unroll
      for (int jp = 0; jp < 4; ++jp) {
        uint kb[4];
        FA_LDM_B(kb, kslot, jp * 16, FA_ROW, st);
#pragma unroll
        for (int mb = 0; mb < FA_MBLK; ++mb) FA_MMA_PAIR(s[mb], jp, qa[mb][st], kb)
      }
    }
#pragma unroll
    for (int mb = 0; mb < FA_MBLK; ++mb) {
      online_softmax_tile(s[mb], bslot, t, &m0[mb], &m8[mb], &l0[mb], &l8[mb], o[mb], 8,
                          AT_FAST);
#if AT_P_IN_LOCAL
      AT_P_STASH(s[mb], pw + mb * 16 * FA_ROW, FA_ROW, g, t)
#endif
    }
#if AT_P_IN_LOCAL
    warp_sync();  // the warp's P tiles are written
#endif
    // O += P V: key step kk covers keys AT_KSTEP kk .. AT_KSTEP (kk + 1) - 1.
#pragma unroll
    for (int kk = 0; kk < FA_KEYS / AT_KSTEP; ++kk) {
      uint pa[FA_MBLK][4];
#pragma unroll
      for (int mb = 0; mb < FA_MBLK; ++mb)
        AT_P_FRAG(pa[mb], s[mb], kk, pw + mb * 16 * FA_ROW, FA_ROW, lane)
#if FA_DIRECT
      __local const float* v_at = AT_V_ROWS_AT(vslot, FA_ROW, kk, lane);
#endif
#pragma unroll
      for (int ip = 0; ip < 4; ++ip) {
        uint vb[4];
#if FA_DIRECT
        AT_V_ROWS_FRAG(vb, v_at, FA_ROW, ip);
#else
        FA_LDM_B(vb, vslot, ip * 16, FA_ROW, kk);
#endif
#pragma unroll
        for (int mb = 0; mb < FA_MBLK; ++mb) FA_MMA_PAIR(o[mb], ip, pa[mb], vb)
      }
    }
#if AT_P_IN_LOCAL
    warp_sync();  // every lane has read P before the next tile overwrites it
#endif
  }
  CP_ASYNC_WAIT(0);
#undef FA_ISSUE
#undef FA_BIAS_TILE
#undef FA_PIECES
#undef FA_K_SRC
#undef FA_V_SRC
#undef FA_BYTES
  const long out_at = (long)b * n * ld_out + h * FA_DH + 2 * t;
  // half_out a constant in each call: each store is inlined once, for its output's format.
#pragma unroll
  for (int mb = 0; mb < FA_MBLK; ++mb) {
    if (AT_HALF_IO && (halves & ACT_HALF_Y))
      store_attention_rows(o[mb], 8, FA_DH, l0[mb], l8[mb], q0 + mb * 16 + g, n, out, out_at,
                           ld_out, 1);
    else
      store_attention_rows(o[mb], 8, FA_DH, l0[mb], l8[mb], q0 + mb * 16 + g, n, out, out_at,
                           ld_out, 0);
  }
}

#undef FA_QUERIES
#undef FA_CHUNKS
#undef FA_CHUNK_BITS
#undef FA_ROW
#undef FA_TILE
#undef FA_KSTEPS
#undef FA_PENDING
#undef FA_WAIT_
#undef FA_WAIT
