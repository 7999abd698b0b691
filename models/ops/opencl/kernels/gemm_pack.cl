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

// Both operands of one product into half bits in one launch (z 0: A into x, z 1: B into w), as
// pack_f16 but 8 columns a work-item (cols, the product's K, is a multiple of 8 on this path):
// a launch each cost the step a command each (gemm_batched_mma.cpp), and one element a work-item
// packed DeepFM's 1,024 x 3,072 weight (12.6 MB read) in 28-29 us, 0.7 TB/s
// (results/h200/lead31-2026-11-28/dfm/). The work-group (16 x 16, one z deep) covers 16 rows
// and 128 columns; a transposed source goes through local memory as in pack_element.
#define PAIR_COLS (PACK_TILE * 8)
__kernel void pack_f16_pair(__global const float* a, int a_off, int lda, int a_trans, int a_rows,
                            __global half* x, __global const float* b, int b_off, int ldb,
                            int b_trans, int b_rows, int cols, __global half* w) {
  __local float tile[PAIR_COLS * (PACK_TILE + 1)];
  const int which = get_global_id(2);
  __global const float* src = which ? b : a;
  __global half* dst = which ? w : x;
  const int rows = which ? b_rows : a_rows, off = which ? b_off : a_off, ld = which ? ldb : lda;
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int r0 = get_group_id(1) * PACK_TILE, c0 = get_group_id(0) * PAIR_COLS;
  if (r0 >= rows || c0 >= cols) return;  // the whole work-group: the other operand is larger
  const int r = r0 + ly, c = c0 + lx * 8;
  float8 v = (float8)(0.0f);
  if (!(which ? b_trans : a_trans)) {
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
