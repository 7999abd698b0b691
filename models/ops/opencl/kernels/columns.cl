// Training-step data movement: fill, column copies (concat_last, slice_last), the column gather
// and its backward, and the embedding's backward. An item per output element unless said;
// consecutive items on consecutive addresses.

__kernel void fill(float value, int n, __global float* y) {
  const int i = get_global_id(0);
  if (i < n) y[i] = value;
}

// y[r, y_col + j] = x[r, x_col + j] for j < width, r < n / width: concat_last (one launch per
// input) and slice_last.
__kernel void copy_columns(__global const float* x, int ldx, int x_col, int width, int ldy,
                           int y_col, int n, __global float* y) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const int r = i / width;
  const int j = i - r * width;
  y[(size_t)r * ldy + y_col + j] = x[(size_t)r * ldx + x_col + j];
}

// copy_columns that also writes y's bf16 bits to yb at the same places: an axis-1 concat whose
// output bf16 convolutions read (DynUNet's decoder, bf16 stages; bf16_copies.cpp says why).
__kernel void copy_columns_bf16(__global const float* x, int ldx, int x_col, int width, int ldy,
                                int y_col, int n, __global float* y, __global ushort* yb) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const int r = i / width;
  const int j = i - r * width;
  const size_t at = (size_t)r * ldy + y_col + j;
  const float v = x[(size_t)r * ldx + x_col + j];
  y[at] = v;
  yb[at] = bf16_bits_rne(v);
}

// y[r, j] = x[r, index[j]]; y is [R, k], x [R, cols].
__kernel void gather_cols(__global const float* x, int cols, __global const int* index, int k,
                          int n, __global float* y) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const int r = i / k;
  const int j = i - r * k;
  y[i] = x[(size_t)r * cols + index[j]];
}

// x[r, index[j]] += y[r, j] over j in order, from a plan the host builds from the index:
// plan = [targets: the distinct columns (count of them) | starts (count + 1) | sources], column
// targets[u] receiving y's columns sources[starts[u] .. starts[u + 1]) in increasing j. An item
// per (row, distinct column) adds them one by one, as a serial loop over j would: no two items
// write the same element, and the sums do not depend on the schedule.
__kernel void scatter_add_cols(__global const float* y, int k, __global const int* plan,
                               int count, int cols, int n, __global float* x) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const int r = i / count;
  const int u = i - r * count;
  __global const int* starts = plan + count;
  __global const int* sources = plan + 2 * count + 1;
  __global float* xr = x + (size_t)r * cols;
  __global const float* yr = y + (size_t)r * k;
  const int c = plan[u];
  float acc = xr[c];
  for (int s = starts[u]; s < starts[u + 1]; ++s) acc += yr[sources[s]];
  xr[c] = acc;
}

// dtable[ids[t], d] += dy[t, d] for tokens t in order. An item per (vocabulary range g, column
// d) walks every token and adds those whose id falls in its range [lo, hi): each table element
// has one writer, which adds in token order, so the sums are the same on every run (no atomics;
// OpenCL 1.2 has no float atomics anyway). The ranges only buy parallelism when the table is
// narrow. The host has checked the ids; the range test also keeps a stale one inside the table.
__kernel void embedding_backward(__global const float* dy, __global const int* ids, int tokens,
                                 int dim, int vocab, int groups, __global float* dtable) {
  const int i = get_global_id(0);
  if (i >= dim * groups) return;
  const int g = i / dim;
  const int d = i - g * dim;
  const int lo = (int)(((long)vocab * g) / groups);
  const int hi = (int)(((long)vocab * (g + 1)) / groups);
  for (int t = 0; t < tokens; ++t) {
    const int id = ids[t];
    if (id >= lo && id < hi) dtable[(size_t)id * dim + d] += dy[(size_t)t * dim + d];
  }
}
