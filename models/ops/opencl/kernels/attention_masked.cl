// Portable fp32 fused multi-head attention with a key-padding bias (flash-attention style: online
// softmax, no n x n buffer). The host includes this body once per head width with
//   FA_NAME     the kernel's name
//   FA_DH       the head width it is compiled for (a head of dh <= FA_DH is zero-padded)
//   FA_BQ       queries (= items) per work-group
//   FA_TK       keys per local-memory tile (a multiple of FA_CHUNK)
//   FA_Q_LOCAL  1: each item reads its query from local memory instead of registers, which
//               would not hold query and accumulator together at the widest heads
//
// A work-group serves FA_BQ consecutive queries of one (batch, head), an item per query; its
// group ids are (batch * heads + head, query block). Key and value tiles pass through local
// memory; every item reads the same key row at a time, so local reads are broadcasts. An item
// scores FA_CHUNK keys, rescales its running sum and accumulator only when the running maximum
// grows, then accumulates p * v. Scores are kept in base 2 (scale and bias premultiplied by
// log2 e) so the softmax uses exp2.
// Keys past n get zero rows and a bias of -FLT_MAX, so they add exactly nothing: no -INFINITY
// arithmetic (which could make NaN) anywhere.

#define FA_D4 (FA_DH / 4)
#if !FA_Q_LOCAL && FA_BQ > 2 * FA_TK
#error "the queries are staged in the key and value tiles: FA_BQ must not exceed 2 * FA_TK"
#endif
#ifndef FA_CHUNK
#define FA_CHUNK 16
#endif

__kernel __attribute__((reqd_work_group_size(FA_BQ, 1, 1)))
void FA_NAME(__global const float* q, __global const float* k, __global const float* v,
             __global const float* key_bias, int has_key_bias, int n, int heads, int dh,
             float scale, int ld_q, int ld_k, int ld_v, int ld_out, int q_col, int k_col,
             int v_col, __global float* out) {
  // Key rows [FA_TK][FA_DH], then value rows.
  __local float4 tiles[2 * FA_TK * FA_D4];
  __local float tile_bias[FA_TK];
#if FA_Q_LOCAL
  __local float4 q_tile[FA_D4 * FA_BQ];
#else
  // Only stages the queries in and the outputs out: FA_BQ <= 2 * FA_TK rows fit.
  __local float4* q_tile = tiles;
#endif
  __local float* tiles_f = (__local float*)tiles;
  __local float* q_tile_f = (__local float*)q_tile;

  const int lid = get_local_id(0);
  // Tile loads: FA_LOAD_COLS consecutive items share a row (coalesced), FA_LOAD_ROWS rows at a
  // time; compile-time trip counts keep address arithmetic out of the inner loop.
#define FA_LOAD_COLS (FA_BQ < FA_DH ? FA_BQ : FA_DH)
#define FA_LOAD_ROWS (FA_BQ / FA_LOAD_COLS)
  const int load_col = lid % FA_LOAD_COLS;
  const int load_row = lid / FA_LOAD_COLS;
  const int bh = get_group_id(0);
  const int i0 = get_group_id(1) * FA_BQ;
  const int b = bh / heads;
  const int h = bh - b * heads;
  const size_t row0 = (size_t)b * n;
  __global const float* qh = q + q_col + h * dh;
  __global const float* kh = k + k_col + h * dh;
  __global const float* vh = v + v_col + h * dh;

  // Queries in, coalesced, stored [d / 4][query] so that item lid's float4 reads of its own
  // query hit consecutive addresses across items.
  const float q_factor = scale * M_LOG2E_F;
  for (int e = lid; e < FA_BQ * FA_DH; e += FA_BQ) {
    const int r = e / FA_DH;
    const int d = e - r * FA_DH;
    const int i = i0 + r;
    const float val = (i < n && d < dh) ? qh[(row0 + i) * ld_q + d] * q_factor : 0.0f;
    q_tile_f[((d >> 2) * FA_BQ + r) * 4 + (d & 3)] = val;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#if FA_Q_LOCAL
#define FA_Q(d4) q_tile[(d4) * FA_BQ + lid]
#else
  float4 q_reg[FA_D4];
#pragma unroll
  for (int d4 = 0; d4 < FA_D4; ++d4) q_reg[d4] = q_tile[d4 * FA_BQ + lid];
#define FA_Q(d4) q_reg[d4]
#endif

  float4 acc[FA_D4];
#pragma unroll
  for (int d4 = 0; d4 < FA_D4; ++d4) acc[d4] = (float4)(0.0f);
  float running_max = -FLT_MAX;
  float running_sum = 0.0f;
  __local const float4* keys = tiles;
  __local const float4* values = tiles + FA_TK * FA_D4;

  for (int j0 = 0; j0 < n; j0 += FA_TK) {
    barrier(CLK_LOCAL_MEM_FENCE);  // the previous tile (or the staged queries) fully read
#pragma unroll
    for (int rr = 0; rr < FA_TK; rr += FA_LOAD_ROWS) {
      const int r = rr + load_row;
      const int j = j0 + r;
      __global const float* kr = kh + (row0 + min(j, n - 1)) * ld_k;
      __global const float* vr = vh + (row0 + min(j, n - 1)) * ld_v;
#pragma unroll
      for (int dd = 0; dd < FA_DH; dd += FA_LOAD_COLS) {
        const int d = dd + load_col;
        const bool inside = j < n && d < dh;
        tiles_f[r * FA_DH + d] = inside ? kr[d] : 0.0f;
        tiles_f[(FA_TK + r) * FA_DH + d] = inside ? vr[d] : 0.0f;
      }
    }
    for (int r = lid; r < FA_TK; r += FA_BQ) {
      const int j = j0 + r;
      tile_bias[r] = j >= n ? -FLT_MAX
                            : (has_key_bias ? key_bias[row0 + j] * M_LOG2E_F : 0.0f);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int keys_here = min(FA_TK, n - j0);
    for (int c0 = 0; c0 < keys_here; c0 += FA_CHUNK) {
      float s[FA_CHUNK];
      float chunk_max = running_max;
#pragma unroll
      for (int c = 0; c < FA_CHUNK; ++c) {
        __local const float4* kr = keys + (c0 + c) * FA_D4;
        float4 dot4 = (float4)(0.0f);
#pragma unroll
        for (int d4 = 0; d4 < FA_D4; ++d4) dot4 = fma(FA_Q(d4), kr[d4], dot4);
        s[c] = (dot4.x + dot4.y) + (dot4.z + dot4.w) + tile_bias[c0 + c];
        chunk_max = fmax(chunk_max, s[c]);
      }
      if (chunk_max > running_max) {
        const float correction = exp2(running_max - chunk_max);
        running_sum *= correction;
#pragma unroll
        for (int d4 = 0; d4 < FA_D4; ++d4) acc[d4] *= correction;
        running_max = chunk_max;
      }
#pragma unroll
      for (int c = 0; c < FA_CHUNK; ++c) {
        const float p = exp2(s[c] - running_max);
        running_sum += p;
        __local const float4* vr = values + (c0 + c) * FA_D4;
#pragma unroll
        for (int d4 = 0; d4 < FA_D4; ++d4) acc[d4] = fma((float4)(p), vr[d4], acc[d4]);
      }
    }
  }
#undef FA_Q

  // Outputs out through the same [d / 4][query] staging, so that the stores coalesce.
  barrier(CLK_LOCAL_MEM_FENCE);
  const float inv_sum = running_sum > 0.0f ? 1.0f / running_sum : 0.0f;
#pragma unroll
  for (int d4 = 0; d4 < FA_D4; ++d4) q_tile[d4 * FA_BQ + lid] = acc[d4] * inv_sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  __global float* oh = out + h * dh;
  for (int e = lid; e < FA_BQ * dh; e += FA_BQ) {
    const int r = e / dh;
    const int d = e - r * dh;
    const int i = i0 + r;
    if (i < n) oh[(row0 + i) * ld_out + d] = q_tile_f[((d >> 2) * FA_BQ + r) * 4 + (d & 3)];
  }
}

#undef FA_D4
#undef FA_LOAD_COLS
#undef FA_LOAD_ROWS
