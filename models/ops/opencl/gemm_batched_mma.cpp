// gemm_batched at f16 or tf32 on NVIDIA tensor cores: each item's operands packed into the
// layout the mma kernels read (x [M, K] half or fp32, W [N, K] half or fp32), one mma GEMM, and
// the product written into C with alpha and beta (by the GEMM itself where C is contiguous and
// alpha is 1). Written here rather than taken from a library because CLBlast's half routines
// need cl_khr_fp16, which NVIDIA's OpenCL lacks.
//
// Several items of one call would each pay two to four launches; a batch of small items (attention
// over a few tokens, a Gram matrix per sample) is computed in fp32 by CLBlast instead, which
// GemmBatch::precision allows ("may be computed in").
#include <algorithm>

#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

constexpr size_t kPackTile = 16;

cl::NDRange grid(int64_t cols, int64_t rows) {
  return cl::NDRange(round_up(cols, kPackTile), round_up(rows, kPackTile));
}

}  // namespace

bool OpenCLBackend::gemm_batched_on_mma(const GemmBatch& g) const {
  return (g.precision == Precision::f16 || g.precision == Precision::tf32) && has_mma() &&
         g.a_offsets.size() == 1;
}

void OpenCLBackend::gemm_batched_mma(const GemmBatch& g, const Tensor& a, const Tensor& b,
                                     Tensor& c) {
  const bool f16 = g.precision == Precision::f16;
  const int m = to_cl_int(g.m, "gemm_batched m"), n = to_cl_int(g.n, "gemm_batched n"),
            k = to_cl_int(g.k, "gemm_batched k");
  const bool pipelined = gemm_pipelined(g.precision, g.k);
  Tensor x = do_empty({g.m, g.k}, pipelined && f16 ? DType::f16 : DType::f32);
  Tensor w = do_empty({g.n, g.k}, f16 ? DType::f16 : DType::f32);
  // op(A) [M, K]: A is [K, M] when transposed. W [N, K] = op(B)^T: B is [N, K] when transposed.
  const cl::NDRange pack_local(kPackTile, kPackTile);
  const int lda = to_cl_int(g.lda, "lda"), ldb = to_cl_int(g.ldb, "ldb");
  if (pipelined && f16) {
    const cl::NDRange pair(round_up(k, kPackTile), round_up(std::max(m, n), kPackTile), 2);
    launch_mma("pack_f16_pair", pair, cl::NDRange(kPackTile, kPackTile, 1), a, g.a_offsets[0], lda,
               g.trans_a ? 1 : 0, m, x, b, g.b_offsets[0], ldb, g.trans_b ? 0 : 1, n, k, w);
  } else {
    launch_mma("pack_f32", grid(k, m), pack_local, a, g.a_offsets[0], lda, g.trans_a ? 1 : 0, m, k,
               x);
    launch_mma(f16 ? "pack_f16" : "pack_f32", grid(k, n), pack_local, b, g.b_offsets[0], ldb,
               g.trans_b ? 0 : 1, n, k, w);
  }
  // Where C is its own contiguous [M, N] and alpha is 1, the GEMM writes C itself (beta 1: C
  // added in place as the epilogue's residual) and no axpby pass follows.
  const bool direct = g.alpha == 1.f && (g.beta == 0.f || g.beta == 1.f) && g.c_offsets[0] == 0 &&
                      g.ldc == g.n && c.dtype() == DType::f32;
  Tensor scratch = direct ? Tensor{} : do_empty({g.m, g.n}, DType::f32);
  Tensor& y = direct ? c : scratch;
  Epilogue ep;
  if (direct && g.beta == 1.f) ep.residual = &c;
  if (pipelined) {
    gemm_pipelined_mma(f16 ? PipeKind::f16 : PipeKind::tf32, x, w, y, ep, g.m, g.n, g.k);
  } else {
    // Must match MMA_BM, MMA_BN and MMA_THREADS in kernels/gemm_mma_nvidia.cl.
    constexpr size_t kTile = 128, kThreads = 256;
    const cl::NDRange global(round_up(g.n, kTile) / kTile * kThreads, round_up(g.m, kTile) / kTile);
    const Tensor* none = nullptr;
    count_gemm(f16 ? PipeKind::f16 : PipeKind::tf32, GemmPath::mma_sync);
    launch_mma(f16 ? "gemm_f16_mma" : "gemm_tf32_mma", global, cl::NDRange(kThreads, 1), x, w, none,
               0, 0, ep.residual, ep.residual ? 1 : 0, g.m, g.n, g.k, y);
  }
  if (direct) return;
  launch_mma("axpby_strided", grid(n, m), pack_local, y, m, n, g.alpha, g.beta, c, g.c_offsets[0],
             to_cl_int(g.ldc, "ldc"));
}

}  // namespace sb
