// Operand packing for gemm_batched on the tensor-core kernels (gemm_batched_mma.cpp): the mma
// kernels read x [M, K] and W [N, K] contiguous, so a strided or transposed operand is packed
// first, and the contiguous product is written back into C with alpha and beta.

// op(src)[r, c] for this work-item's (r, c) = (global id 1, global id 0), where op(src)[r, c] is
// src[off + r * ld + c], or src[off + c * ld + r] when `trans`; 0 outside rows x cols. A
// transposed source goes through a 16 x 16 tile in local memory so that neighbouring work-items
// read neighbouring addresses in it too: read straight, each work-item's read was `ld` floats from
// its neighbour's, and DeepFM's transposed operands took 20-29 us a pack against 4-8 for straight
// ones (results/h200/lead30-2026-11-28/dfm/check/timeline-new.trace.json.gz). `trans` must be
// the same across the work-group (the barrier), and the work-group is PACK_TILE x PACK_TILE.
#define PACK_TILE 16
float pack_element(__global const float* src, int off, int ld, int trans, int rows, int cols,
                   __local float* tile) {
  const int c = get_global_id(0), r = get_global_id(1);
  if (!trans) return r < rows && c < cols ? src[off + (long)r * ld + c] : 0.0f;
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int r0 = get_group_id(1) * PACK_TILE, c0 = get_group_id(0) * PACK_TILE;
  // Here local x walks op(src)'s rows, which are src's contiguous direction.
  const int rr = r0 + lx, cc = c0 + ly;
  tile[ly * (PACK_TILE + 1) + lx] = rr < rows && cc < cols ? src[off + (long)cc * ld + rr] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  return tile[lx * (PACK_TILE + 1) + ly];  // op(src)[r0 + ly, c0 + lx]
}

// dst[r, c] (rows x cols, contiguous) = op(src)[r, c].
__kernel void pack_f32(__global const float* src, int off, int ld, int trans, int rows, int cols,
                       __global float* dst) {
  __local float tile[PACK_TILE * (PACK_TILE + 1)];
  const int c = get_global_id(0), r = get_global_id(1);
  const float v = pack_element(src, off, ld, trans, rows, cols, tile);
  if (r < rows && c < cols) dst[(long)r * cols + c] = v;
}

// The same into half bits (no cl_khr_fp16 needed: vstore_half rounds to nearest even).
__kernel void pack_f16(__global const float* src, int off, int ld, int trans, int rows, int cols,
                       __global half* dst) {
  __local float tile[PACK_TILE * (PACK_TILE + 1)];
  const int c = get_global_id(0), r = get_global_id(1);
  const float v = pack_element(src, off, ld, trans, rows, cols, tile);
  if (r < rows && c < cols) vstore_half(v, (long)r * cols + c, dst);
}

// The columns a 16 x 16 work-group of the 8-columns-an-item packs (pack_f16_pair below) covers.
#define PAIR_COLS (PACK_TILE * 8)
// One work-group's 16 rows x 128 columns of dst (rows x cols, contiguous) = op(src) in half
// bits; returns at once where the tile lies outside (uniform over the work-group, so the barrier
// is reached by all or none). `tile` holds PAIR_COLS x (PACK_TILE + 1) floats.
void pack_f16_rows8(__global const float* src, int off, int ld, int trans, int rows, int cols,
                    __global half* dst, __local float* tile) {
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int r0 = get_group_id(1) * PACK_TILE, c0 = get_group_id(0) * PAIR_COLS;
  if (r0 >= rows || c0 >= cols) return;  // the whole work-group: another operand is larger
  const int r = r0 + ly, c = c0 + lx * 8;
  float8 v = (float8)(0.0f);
  if (!trans) {
    if (r < rows && c < cols) {
      __global const float* p = src + off + (long)r * ld + c;
      v = (float8)(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]);
    }
  } else {
    // Item (lx, ly) reads op(src)'s column c0 + 8 ly + j at rows r0 + lx (src's contiguous
    // direction), j 0..7, into tile[column][row]; then takes its own 8 columns of row r.
    const int rr = r0 + lx;
    for (int j = 0; j < 8; ++j) {
      const int cc = c0 + ly * 8 + j;
      tile[(ly * 8 + j) * (PACK_TILE + 1) + lx] =
          rr < rows && cc < cols ? src[off + (long)cc * ld + rr] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __local const float* t = tile + lx * 8 * (PACK_TILE + 1) + ly;
    v = (float8)(t[0], t[PACK_TILE + 1], t[2 * (PACK_TILE + 1)], t[3 * (PACK_TILE + 1)],
                 t[4 * (PACK_TILE + 1)], t[5 * (PACK_TILE + 1)], t[6 * (PACK_TILE + 1)],
                 t[7 * (PACK_TILE + 1)]);
  }
  if (r < rows && c < cols) vstore_half8(v, 0, dst + (long)r * cols + c);
}

// Both operands of one product into half bits in one launch (z 0: A into x, z 1: B into w), as
// pack_f16 but 8 columns a work-item (cols, the product's K, is a multiple of 8 on this path):
// a launch each cost the step a command each (gemm_batched_mma.cpp), and one element a work-item
// packed DeepFM's 1,024 x 3,072 weight (12.6 MB read) in 28-29 us, 0.7 TB/s
// (results/h200/lead31-2026-11-28/dfm/). The work-group (16 x 16, one z deep) covers 16 rows
// and 128 columns; a transposed source goes through local memory as in pack_element.
__kernel void pack_f16_pair(__global const float* a, int a_off, int lda, int a_trans, int a_rows,
                            __global half* x, __global const float* b, int b_off, int ldb,
                            int b_trans, int b_rows, int cols, __global half* w) {
  __local float tile[PAIR_COLS * (PACK_TILE + 1)];
  if (get_global_id(2))
    pack_f16_rows8(b, b_off, ldb, b_trans, b_rows, cols, w, tile);
  else
    pack_f16_rows8(a, a_off, lda, a_trans, a_rows, cols, x, tile);
}

// A linear layer's backward in one launch (linear_grads.cpp, dfm36): z 0-3 pack the half
// operands of its two products as pack_f16_pair does (dW = dy^T x: dy^T and x^T; dx = dy W: dy
// and W^T; a slot of 0 rows is skipped), z 4 sums dy [sum_rows, sum_cols] over its rows into db,
// 16 row phases a column added in a fixed order (deterministic). Before, each product paid its
// own pack launch and db a sum_axis1 launch: three commands of 5-20 us each where this is one.
__kernel void pack_f16_linear_grads(
    __global const float* s0, int ld0, int t0, int rows0, int cols0, __global half* d0,
    __global const float* s1, int ld1, int t1, int rows1, int cols1, __global half* d1,
    __global const float* s2, int ld2, int t2, int rows2, int cols2, __global half* d2,
    __global const float* s3, int ld3, int t3, int rows3, int cols3, __global half* d3,
    int sum_rows, int sum_cols, __global float* db) {
  __local float tile[PAIR_COLS * (PACK_TILE + 1)];
  const int z = get_global_id(2);
  if (z == 0) pack_f16_rows8(s0, 0, ld0, t0, rows0, cols0, d0, tile);
  if (z == 1) pack_f16_rows8(s1, 0, ld1, t1, rows1, cols1, d1, tile);
  if (z == 2) pack_f16_rows8(s2, 0, ld2, t2, rows2, cols2, d2, tile);
  if (z == 3) pack_f16_rows8(s3, 0, ld3, t3, rows3, cols3, d3, tile);
  if (z != 4) return;
  // dy is slot 0's source; this work-group sums 16 of its columns.
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int group = get_group_id(1) * get_num_groups(0) + get_group_id(0);
  const int col = group * PACK_TILE + lx;
  if (group * PACK_TILE >= sum_cols) return;  // uniform over the work-group
  float s = 0.0f;
  if (col < sum_cols)
    for (int r = ly; r < sum_rows; r += PACK_TILE) s += s0[(long)r * sum_cols + col];
  tile[ly * PACK_TILE + lx] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (ly != 0 || col >= sum_cols) return;
  float total = 0.0f;
  for (int j = 0; j < PACK_TILE; ++j) total += tile[j * PACK_TILE + lx];
  db[col] = total;
}

// c[off + r * ldc + col] = alpha * sum over s of t[s, r, col] + beta * c[...] (+ bias[col]), t
// being [splits, rows, cols] (a split-K product's slices, summed in order: deterministic);
// beta == 0 never reads c.
__kernel void axpby_strided(__global const float* t, int splits, int rows, int cols, float alpha,
                            float beta, __global float* c, int off, int ldc,
                            __global const float* bias, int has_bias) {
  const int col = get_global_id(0), r = get_global_id(1);
  if (r >= rows || col >= cols) return;
  const long at = off + (long)r * ldc + col, slice = (long)rows * cols;
  float sum = 0.0f;
  for (int s = 0; s < splits; ++s) sum += t[s * slice + (long)r * cols + col];
  const float v = alpha * sum + (has_bias ? bias[col] : 0.0f);
  c[at] = beta == 0.0f ? v : v + beta * c[at];
}
