// Transformer-XL relative attention (Enformer's), fused.

// Flash-attention style: a work-group per (query tile of RA_TQ rows, batch * head), RA_TK x
// RA_TQ items. Per key tile of RA_TK keys it stages the keys, the values and the band of rel_k
// rows that tile needs (distances j - i over the tile: RA_TQ + RA_TK - 1 rows) in local
// memory; item (tx, ty) scores query i0 + ty against key j0 + tx, the row's items keep the
// running max and sum (online softmax) and RA_MAX_COLS output columns each in registers.
// Local buffers (sizes set by the host): qc, qp [RA_TQ * dk] (query + content / position
// bias), keys [RA_TK * (dk + 1)], values [RA_TK * dv], band [(RA_TQ + RA_TK - 1) * (dk + 1)],
// probs [RA_TQ * RA_TK]; the +1 pads rows apart in local memory banks.
__kernel __attribute__((reqd_work_group_size(RA_TK, RA_TQ, 1)))
void rel_attention_fused(__global const float* q, __global const float* k,
                         __global const float* v, __global const float* rel_k,
                         __global const float* content_bias, __global const float* pos_bias,
                         int n, int heads, int dk, int dv, __global float* out,
                         __local float* qc, __local float* qp, __local float* keys,
                         __local float* values, __local float* band, __local float* probs) {
  const int tx = get_local_id(0);
  const int ty = get_local_id(1);
  const int tid = ty * RA_TK + tx;
  const int group_items = RA_TK * RA_TQ;
  const int i0 = get_group_id(0) * RA_TQ;
  const int bh = get_group_id(1);
  const int b = bh / heads;
  const int h = bh - b * heads;
  const int qk_stride = heads * dk;
  const int v_stride = heads * dv;
  const int kpad = dk + 1;
  __global const float* qb = q + (size_t)b * n * qk_stride + h * dk;
  __global const float* kb = k + (size_t)b * n * qk_stride + h * dk;
  __global const float* vb = v + (size_t)b * n * v_stride + h * dv;
  __global const float* rh = rel_k + h * dk;

  for (int e = tid; e < RA_TQ * dk; e += group_items) {
    const int r = e / dk;
    const int d = e - r * dk;
    const int i = i0 + r;
    const float qv = i < n ? qb[(size_t)i * qk_stride + d] : 0.0f;
    qc[e] = qv + content_bias[h * dk + d];
    qp[e] = qv + pos_bias[h * dk + d];
  }

  float running_max = -INFINITY;
  float running_sum = 0.0f;
  float acc[RA_MAX_COLS];
#pragma unroll
  for (int t = 0; t < RA_MAX_COLS; ++t) acc[t] = 0.0f;

  const int band_rows = RA_TQ + RA_TK - 1;
  for (int j0 = 0; j0 < n; j0 += RA_TK) {
    barrier(CLK_LOCAL_MEM_FENCE);  // the previous tile is fully consumed
    for (int e = tid; e < RA_TK * dk; e += group_items) {
      const int r = e / dk;
      const int d = e - r * dk;
      const int j = j0 + r;
      keys[r * kpad + d] = j < n ? kb[(size_t)j * qk_stride + d] : 0.0f;
    }
    for (int e = tid; e < RA_TK * dv; e += group_items) {
      const int r = e / dv;
      const int c = e - r * dv;
      const int j = j0 + r;
      values[e] = j < n ? vb[(size_t)j * v_stride + c] : 0.0f;
    }
    // Band row t holds rel_k[(n - 1) + j0 - (i0 + RA_TQ - 1) + t]; query ty and key tx use
    // row tx - ty + RA_TQ - 1. Rows outside [0, 2n - 2] only meet masked (i, j) pairs.
    const int band_first = (n - 1) + j0 - (i0 + RA_TQ - 1);
    for (int e = tid; e < band_rows * dk; e += group_items) {
      const int r = e / dk;
      const int d = e - r * dk;
      const int ridx = band_first + r;
      band[r * kpad + d] = (ridx >= 0 && ridx < 2 * n - 1) ? rh[(size_t)ridx * qk_stride + d] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    float score = 0.0f;
    __local const float* qcr = qc + ty * dk;
    __local const float* qpr = qp + ty * dk;
    __local const float* kr = keys + tx * kpad;
    __local const float* br = band + (tx - ty + RA_TQ - 1) * kpad;
    for (int d = 0; d < dk; ++d) score += qcr[d] * kr[d] + qpr[d] * br[d];
    if (j0 + tx >= n) score = -INFINITY;
    probs[tid] = score;
    barrier(CLK_LOCAL_MEM_FENCE);

    __local const float* row = probs + ty * RA_TK;
    float tile_max = -INFINITY;
    for (int jj = 0; jj < RA_TK; ++jj) tile_max = fmax(tile_max, row[jj]);
    const float new_max = fmax(running_max, tile_max);
    const float correction = exp(running_max - new_max);  // 0 on the first tile
    barrier(CLK_LOCAL_MEM_FENCE);  // all scores read before they become probabilities
    probs[tid] = exp(score - new_max);
    barrier(CLK_LOCAL_MEM_FENCE);

    float tile_sum = 0.0f;
    for (int jj = 0; jj < RA_TK; ++jj) tile_sum += row[jj];
    running_sum = running_sum * correction + tile_sum;
    running_max = new_max;
#pragma unroll
    for (int t = 0; t < RA_MAX_COLS; ++t) {
      const int c = tx + t * RA_TK;
      if (c < dv) {
        float a = acc[t] * correction;
        for (int jj = 0; jj < RA_TK; ++jj) a += row[jj] * values[jj * dv + c];
        acc[t] = a;
      }
    }
  }

  const int i = i0 + ty;
  if (i >= n) return;
  const float inv_sum = 1.0f / running_sum;
  __global float* orow = out + ((size_t)b * n + i) * v_stride + h * dv;
#pragma unroll
  for (int t = 0; t < RA_MAX_COLS; ++t) {
    const int c = tx + t * RA_TK;
    if (c < dv) orow[c] = acc[t] * inv_sum;
  }
}
