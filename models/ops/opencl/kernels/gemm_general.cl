// The portable stand-in for CLBlast's fp32 GEMMs, taken under STAGEBENCH_F32_GEMM=portable
// (gemm_tiled.cpp): row-major C = alpha op(A) op(B) + beta C, an item per element of C, its k
// loop in order. Written to be plainly right rather than fast: under a simulator (Oclgrind,
// scripts/oclgrind-ci.sh) CLBlast's kernels take minutes a call, and this lets every op whose
// products are CLBlast's run there with the kernels around its products checked.
// A(i, p) is a[a_off + i lda + p], or a[a_off + p lda + i] transposed; B(p, j) likewise.
// beta == 0 does not read C, as BLAS promises (C may hold NaN).
__kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void gemm_general(int m, int n, int k, int trans_a, int trans_b, float alpha,
                  __global const float* a, int a_off, int lda, __global const float* b, int b_off,
                  int ldb, float beta, __global float* c, int c_off, int ldc) {
  const int j = get_global_id(0);
  const int i = get_global_id(1);
  if (i >= m || j >= n) return;
  // Steps through A's row i and B's column j as p advances, and their starts.
  const size_t a_step = trans_a ? (size_t)lda : 1;
  const size_t b_step = trans_b ? 1 : (size_t)ldb;
  const size_t a0 = (size_t)a_off + (trans_a ? (size_t)i : (size_t)i * lda);
  const size_t b0 = (size_t)b_off + (trans_b ? (size_t)j * ldb : (size_t)j);
  float acc = 0.0f;
  for (int p = 0; p < k; ++p) acc = fma(a[a0 + p * a_step], b[b0 + p * b_step], acc);
  const size_t at = (size_t)c_off + (size_t)i * ldc + j;
  c[at] = beta == 0.0f ? alpha * acc : alpha * acc + beta * c[at];
}

// Many small products in one launch (attention over a few tokens, a Gram matrix per sample),
// where a library's tiles would be mostly padding and its batched routine uploads offset arrays
// every call (CLBlast's GemmBatched took 175-225 us for 512 4 x 4 products on an H200). An item
// per element of C over all products; product t's operands start at
//   base + (t / inner) * outer + (t % inner) * step      (gemm_small.cpp's ItemStrides)
// so the offsets need no buffer. beta == 0 does not read C.
#define ITEM_OFFSET(t, base, outer, step, inner) \
  ((long)(base) + (long)((t) / (inner)) * (outer) + (long)((t) % (inner)) * (step))
// The two kernels' parameters, and the same names passed on.
#define SMALL_PARAMS                                                                            \
  int m, int n, int k, int trans_a, int trans_b, float alpha, float beta, int items,           \
      __global const float *a, int a_base, int a_outer, int a_step, int a_inner, int lda,      \
      __global const float *b, int b_base, int b_outer, int b_step, int b_inner, int ldb,      \
      __global float *c, int c_base, int c_outer, int c_step, int c_inner, int ldc,          \
      __global const float *bias, int has_bias, __global half *copy, int has_copy
#define SMALL_SHAPE                                                                             \
  m, n, k, trans_a, trans_b, a, a_base, a_outer, a_step, a_inner, lda, b, b_base, b_outer,     \
      b_step, b_inner, ldb, c_base, c_outer, c_step, c_inner, ldc

// Element `element` of C over all products: the sum of its terms p = first, first + stride, ...
// below k, and in *at its index in C.
float small_partial(long element, int first, int stride, int m, int n, int k, int trans_a,
                    int trans_b, __global const float* a, int a_base, int a_outer, int a_step,
                    int a_inner, int lda, __global const float* b, int b_base, int b_outer,
                    int b_step, int b_inner, int ldb, int c_base, int c_outer, int c_step,
                    int c_inner, int ldc, long* at) {
  const long per_item = (long)m * n;
  const int t = (int)(element / per_item);
  const int e = (int)(element % per_item);
  const int i = e / n, j = e % n;
  const long a_inc = trans_a ? lda : 1;
  const long b_inc = trans_b ? 1 : ldb;
  const long a0 = ITEM_OFFSET(t, a_base, a_outer, a_step, a_inner) +
                  (trans_a ? (long)i : (long)i * lda);
  const long b0 = ITEM_OFFSET(t, b_base, b_outer, b_step, b_inner) +
                  (trans_b ? (long)j * ldb : (long)j);
  *at = ITEM_OFFSET(t, c_base, c_outer, c_step, c_inner) + (long)i * ldc + j;
  float acc = 0.0f;
  for (int p = first; p < k; p += stride) acc = fma(a[a0 + p * a_inc], b[b0 + p * b_inc], acc);
  return acc;
}

// C = alpha op(A) op(B) (+ bias[j], C's column j: a one-item product's epilogue, DeepFM's heads,
// gemm_small.cpp) + beta C.
float small_epilogue(float acc, long element, int n, float alpha, __global const float* bias,
                     int has_bias) {
  return alpha * acc + (has_bias ? bias[(int)(element % n)] : 0.0f);
}

// C's element, and its half (rounded to nearest even, as the products' packs round) where the
// caller noticed C would be held for f16 reads (f16_activations.cpp: DeepFM's attention output,
// which the out-projection then reads without a pack launch, dfm36).
void small_store(__global float* c, long at, float v, __global half* copy, int has_copy) {
  c[at] = v;
  if (has_copy) vstore_half(v, at, copy);
}

__kernel void gemm_batched_small(SMALL_PARAMS) {
  const long gid = get_global_id(0);
  if (gid >= (long)m * n * items) return;
  long at;
  const float acc = small_partial(gid, 0, 1, SMALL_SHAPE, &at);
  const float v = small_epilogue(acc, gid, n, alpha, bias, has_bias);
  small_store(c, at, beta == 0.0f ? v : v + beta * c[at], copy, has_copy);
}

// gemm_batched_small for a long K (gemm_small.cpp chooses it): the loop above is K dependent
// steps on one work-item, which left the Gram matrices (K 768) at 54 us a call on an H200.
// Here SMALL_LANES work-items share one element of C: each sums every SMALL_LANES-th term
// (consecutive lanes read consecutive elements of a row-major A), then the lanes' partial sums
// are added in a fixed tree, so every run sums in the same order.
#define SMALL_LANES 32
__kernel __attribute__((reqd_work_group_size(SMALL_LANES, 1, 1)))
void gemm_batched_small_lanes(SMALL_PARAMS) {
  __local float part[SMALL_LANES];
  const int lane = get_local_id(0);
  long at;  // one element of C a work-group: never past the end
  part[lane] = small_partial(get_group_id(0), lane, SMALL_LANES, SMALL_SHAPE, &at);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int width = SMALL_LANES / 2; width > 0; width /= 2) {
    if (lane < width) part[lane] += part[lane + width];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lane > 0) return;
  const float v = small_epilogue(part[0], get_group_id(0), n, alpha, bias, has_bias);
  small_store(c, at, beta == 0.0f ? v : v + beta * c[at], copy, has_copy);
}
