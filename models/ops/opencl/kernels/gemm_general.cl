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
