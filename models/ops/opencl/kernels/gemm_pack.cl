// Operand packing for gemm_batched on the tensor-core kernels (gemm_batched_mma.cpp): the mma
// kernels read x [M, K] and W [N, K] contiguous, so a strided or transposed operand is packed
// first, and the contiguous product is written back into C with alpha and beta.

// dst[r, c] (rows x cols, contiguous) = src[off + r * ld + c], or src[off + c * ld + r] when
// `trans`.
__kernel void pack_f32(__global const float* src, int off, int ld, int trans, int rows, int cols,
                       __global float* dst) {
  const int c = get_global_id(0), r = get_global_id(1);
  if (r >= rows || c >= cols) return;
  const long at = trans ? off + (long)c * ld + r : off + (long)r * ld + c;
  dst[(long)r * cols + c] = src[at];
}

// The same into half bits (no cl_khr_fp16 needed: vstore_half rounds to nearest even).
__kernel void pack_f16(__global const float* src, int off, int ld, int trans, int rows, int cols,
                       __global half* dst) {
  const int c = get_global_id(0), r = get_global_id(1);
  if (r >= rows || c >= cols) return;
  const long at = trans ? off + (long)c * ld + r : off + (long)r * ld + c;
  vstore_half(src[at], (long)r * cols + c, dst);
}

// Both operands of one product into half bits in one launch (z 0: A into x, z 1: B into w), each
// as pack_f16: a launch each cost the step a command each (gemm_batched_mma.cpp).
__kernel void pack_f16_pair(__global const float* a, int a_off, int lda, int a_trans, int a_rows,
                            __global half* x, __global const float* b, int b_off, int ldb,
                            int b_trans, int b_rows, int cols, __global half* w) {
  const int c = get_global_id(0), r = get_global_id(1), which = get_global_id(2);
  __global const float* src = which ? b : a;
  __global half* dst = which ? w : x;
  const int rows = which ? b_rows : a_rows, off = which ? b_off : a_off, ld = which ? ldb : lda;
  const int trans = which ? b_trans : a_trans;
  if (r >= rows || c >= cols) return;
  const long at = trans ? off + (long)c * ld + r : off + (long)r * ld + c;
  vstore_half(src[at], (long)r * cols + c, dst);
}

// c[off + r * ldc + col] = alpha * t[r, col] + beta * c[...]; beta == 0 never reads c.
__kernel void axpby_strided(__global const float* t, int rows, int cols, float alpha, float beta,
                            __global float* c, int off, int ldc) {
  const int col = get_global_id(0), r = get_global_id(1);
  if (r >= rows || col >= cols) return;
  const long at = off + (long)r * ldc + col;
  const float v = alpha * t[(long)r * cols + col];
  c[at] = beta == 0.0f ? v : v + beta * c[at];
}
