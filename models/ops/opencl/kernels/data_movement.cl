// Data movement: im2col, row-range copies and the embedding gather, an item per output
// element (im2col: per four), consecutive items on consecutive addresses; the volume layout
// transpose, by tiles.

// cols[b*L + l, j*C + c] = T(x[b, l + j - k/2, c]), zero outside [0, L); T applies the
// optional per-channel affine and activation to real elements only. Four elements an item: with
// C a multiple of 4 they are four channels of one tap and row, found with one set of divisions
// and moved by 16-byte accesses (one element an item, the divisions made Enformer's im2col
// passes compute-bound on the H200); otherwise one at a time.
__kernel void im2col(__global const float* x, int length, int channels, int taps,
                     __global const float* scale, int has_scale, __global const float* shift,
                     int has_shift, int act, int n, __global float* cols) {
  const int i4 = get_global_id(0) * 4;
  const int width = taps * channels;
  if ((channels & 3) == 0) {
    if (i4 >= n) return;
    const int row = i4 / width, col = i4 - row * width;
    const int tap = col / channels, c = col - tap * channels;
    const int b = row / length, src = row - b * length + tap - taps / 2;
    float4 v = (float4)(0.0f);
    if (src >= 0 && src < length) {
      v = LOAD4(x, (b * length + src) * channels + c);
      if (has_scale) v *= LOAD4(scale, c);
      if (has_shift) v += LOAD4(shift, c);
      v = apply_act4(v, act);
    }
    AT4(cols, i4) = v;
    return;
  }
  for (int i = i4; i < min(i4 + 4, n); ++i) {
    const int row = i / width;
    const int col = i - row * width;
    const int tap = col / channels;
    const int c = col - tap * channels;
    const int b = row / length;
    const int src = row - b * length + tap - taps / 2;
    float v = 0.0f;
    if (src >= 0 && src < length) {
      v = x[(b * length + src) * channels + c];
      if (has_scale) v *= scale[c];
      if (has_shift) v += shift[c];
      v = apply_act(v, act);
    }
    cols[i] = v;
  }
}

// y[b, r, :] = x[b, start + r, :]; y is [B, rows, C], x is [B, length, C].
__kernel void copy_rows(__global const float* x, int length, int start, int rows,
                        int channels, int n, __global float* y) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const int per_batch = rows * channels;
  const int b = i / per_batch;
  const int rest = i - b * per_batch;
  y[i] = x[(b * length + start) * channels + rest];
}

// y = x, four elements an item, each tensor fp32 or f16 bits as `halves` says (ACT_HALF_X,
// ACT_HALF_Y); f16 stores round to nearest even, as every f16 producer's epilogue does.
__kernel void convert_act(__global const float* x, int n, __global float* y, int halves) {
  const int i = get_global_id(0) * 4;
  for (int j = i; j < min(i + 4, n); ++j)
    act_store(y, j, act_load(x, j, halves & ACT_HALF_X), halves & ACT_HALF_Y);
}

// y[t, c] = table[ids[t], c] + (has_rows ? rows[t % seq, c] : 0); t over B * S tokens.
// The host has checked every id against the table (Backend::embedding); the clamp only keeps a
// stale id from reading outside the table.
// Where has_y16, y's f16 copy too (f16_activations.cpp).
__kernel void embedding_gather(__global const float* table, int vocab, __global const int* ids,
                               __global const float* rows, int has_rows, int seq, int dim,
                               int n, __global float* y, __global half* y16, int has_y16) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const int token = i / dim;
  const int c = i - token * dim;
  const int id = clamp(ids[token], 0, vocab - 1);
  float v = table[(size_t)id * dim + c];
  if (has_rows) v += rows[(size_t)(token % seq) * dim + c];
  y[i] = v;
  if (has_y16) vstore_half(v, i, y16);
}

// y [b, cols, rows] = x [b, rows, cols]: ncdhw <-> ndhwc volumes ([N, C, V] <-> [N, V, C]), so
// ncdhw convolutions reach the channels-last implicit GEMMs (conv3d_ncdhw.cpp). A 16 x 16 tile
// through local memory keeps reads and writes coalesced; the tiles are enumerated along dimension
// 0 (tiles_c across), whose group count has no 65,535 limit.
__kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void volume_transpose(__global const float* x, int rows, int cols, int tiles_c,
                      __global float* y) {
  __local float tile[16][17];
  const int g = get_group_id(0), b = get_group_id(2);
  const int c0 = (g % tiles_c) * 16, r0 = (g / tiles_c) * 16;
  const int tx = get_local_id(0), ty = get_local_id(1);
  const size_t base = (size_t)b * rows * cols;
  if (r0 + ty < rows && c0 + tx < cols)
    tile[ty][tx] = x[base + (size_t)(r0 + ty) * cols + c0 + tx];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (c0 + ty < cols && r0 + tx < rows)
    y[base + (size_t)(c0 + ty) * rows + r0 + tx] = tile[tx][ty];
}
