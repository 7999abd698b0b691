// gemm_batched at f16 or tf32 on NVIDIA tensor cores: each item's operands packed into the
// layout the mma kernels read (x [M, K] half or fp32, W [N, K] half or fp32), one mma GEMM, and
// the product written into C with alpha and beta (by the GEMM itself where C is contiguous and
// alpha is 1). Written here rather than taken from a library because CLBlast's half routines
// need cl_khr_fp16, which NVIDIA's OpenCL lacks.
//
// Several items of one call would each pay two to four launches; a batch of small items (attention
// over a few tokens, a Gram matrix per sample) is computed in fp32 by CLBlast instead, which
// GemmBatch::precision allows ("may be computed in").
//
// An f16 product on wgmma with few output tiles and a long K may split K (split_k below): DeepFM's
// 64 x 1,024 x 3,072 product is 8 tiles of 128 x 128, so its 48 K tiles ran on 8 of an H200's 132
// SMs, 15-33 us a product (results/h200/lead30-2026-11-28/dfm/check/timeline-new.trace.json.gz).
// The slices are summed by the pass that writes C, in a fixed order: deterministic.
#include <algorithm>

#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

constexpr size_t kPackTile = 16;  // PACK_TILE in kernels/gemm_pack.cl: the work-group is its square
constexpr int kSplitTileN = 128;  // the wgmma variant a split product runs (split_k_candidates)  //
                                  // PACK_TILE in kernels/gemm_pack.cl: the work-group is its square

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
  // op(A) [M, K]: A is [K, M] when transposed. W [N, K] = op(B)^T: B is [N, K] when transposed,
  // and then, where its optimizer step wrote B's f16 image (a held parameter: bf16_copies.cpp),
  // W is that image and only x is packed.
  const Tensor image = pipelined && f16 && g.trans_b && g.ldb == g.k
                           ? held_f16_image(b, g.b_offsets[0], g.n * g.k)
                           : Tensor();
  Tensor w = image.defined() ? image : do_empty({g.n, g.k}, f16 ? DType::f16 : DType::f32);
  // And x its producer's f16 copy where A is a held activation read whole and untransposed
  // (f16_activations.cpp, dfm35): with W's image, no pack launch. Packed otherwise.
  const Tensor x_copy = image.defined() && !g.trans_a && g.lda == g.k && g.a_offsets[0] == 0
                            ? held_f16_copy(a, g.m * g.k)
                            : Tensor();
  Tensor x = x_copy.defined() ? x_copy.reshaped({g.m, g.k})
                              : do_empty({g.m, g.k}, pipelined && f16 ? DType::f16 : DType::f32);
  const cl::NDRange pack_local(kPackTile, kPackTile);
  const int lda = to_cl_int(g.lda, "lda"), ldb = to_cl_int(g.ldb, "ldb");
  if (x_copy.defined()) {
    // Both operands' halves written by their producers: nothing to pack.
  } else if (pipelined && f16) {
    // 8 columns a work-item (kernels/gemm_pack.cl: PAIR_COLS); K is a multiple of 8 here. z 0
    // packs x, z 1 W (not launched over an image, which the kernel then never writes).
    const int packed = image.defined() ? 1 : 2;
    const cl::NDRange pair(round_up(k / 8, kPackTile),
                           round_up(image.defined() ? m : std::max(m, n), kPackTile), packed);
    launch_mma("pack_f16_pair", pair, cl::NDRange(kPackTile, kPackTile, 1), a, g.a_offsets[0], lda,
               g.trans_a ? 1 : 0, m, x, b, g.b_offsets[0], ldb, g.trans_b ? 0 : 1, n, k, w);
  } else {
    launch_mma("pack_f32", grid(k, m), pack_local, a, g.a_offsets[0], lda, g.trans_a ? 1 : 0, m, k,
               x);
    launch_mma(f16 ? "pack_f16" : "pack_f32", grid(k, n), pack_local, b, g.b_offsets[0], ldb,
               g.trans_b ? 0 : 1, n, k, w);
  }
  gemm_batched_mma_product(g, x, w, c);
}

// The product itself, x [M, K] and w [N, K] packed (half bits on the pipelined f16 path), into
// C with alpha and beta: gemm_batched_mma's and linear_grads.cpp's.
void OpenCLBackend::gemm_batched_mma_product(const GemmBatch& g, const Tensor& x, const Tensor& w,
                                             Tensor& c) {
  const bool f16 = g.precision == Precision::f16;
  const int m = to_cl_int(g.m, "gemm_batched m"), n = to_cl_int(g.n, "gemm_batched n");
  const bool pipelined = gemm_pipelined(g.precision, g.k);
  const cl::NDRange pack_local(kPackTile, kPackTile);
  const int splits = pipelined && f16 ? split_k(x, w, g.m, g.n, g.k) : 1;
  if (splits > 1) {
    Tensor parts = do_empty({splits, g.m, g.n}, DType::f32);
    count_gemm(PipeKind::f16, GemmPath::wgmma);
    launch_wgmma(kSplitTileN, x, w, parts, Epilogue{}, g.m, g.n, g.k, {}, splits);
    launch_mma("axpby_strided", grid(n, m), pack_local, parts, splits, m, n, g.alpha, g.beta, c,
               g.c_offsets[0], to_cl_int(g.ldc, "ldc"), g.bias, g.bias ? 1 : 0);
    return;
  }
  // Where C is its own contiguous [M, N] and alpha is 1, the GEMM writes C itself (beta 1: C
  // added in place as the epilogue's residual) and no axpby pass follows.
  const bool direct = g.alpha == 1.f && (g.beta == 0.f || g.beta == 1.f) && g.c_offsets[0] == 0 &&
                      g.ldc == g.n && c.dtype() == DType::f32;
  Tensor scratch = direct ? Tensor{} : do_empty({g.m, g.n}, DType::f32);
  Tensor& y = direct ? c : scratch;
  Epilogue ep;
  if (direct && g.beta == 1.f) ep.residual = &c;
  if (direct) ep.bias = g.bias;
  if (pipelined) {
    gemm_pipelined_mma(f16 ? PipeKind::f16 : PipeKind::tf32, x, w, y, ep, g.m, g.n, g.k);
  } else {
    // Must match MMA_BM, MMA_BN and MMA_THREADS in kernels/gemm_mma_nvidia.cl.
    constexpr size_t kTile = 128, kThreads = 256;
    const cl::NDRange global(round_up(g.n, kTile) / kTile * kThreads, round_up(g.m, kTile) / kTile);
    count_gemm(f16 ? PipeKind::f16 : PipeKind::tf32, GemmPath::mma_sync);
    launch_mma(f16 ? "gemm_f16_mma" : "gemm_tf32_mma", global, cl::NDRange(kThreads, 1), x, w,
               ep.bias, ep.bias ? 1 : 0, 0, ep.residual, ep.residual ? 1 : 0, g.m, g.n, g.k, y);
  }
  if (direct) return;
  launch_mma("axpby_strided", grid(n, m), pack_local, y, 1, m, n, g.alpha, g.beta, c,
             g.c_offsets[0], to_cl_int(g.ldc, "ldc"), g.bias, g.bias ? 1 : 0);
}

// As pipe_tile() chooses a tile width (fastest_candidate, on scratch; wall time around a finish,
// so a split's summing pass is counted with it); 1 runs as an unsplit call would (pipe_tile's
// choice).
int OpenCLBackend::split_k(const Tensor& x, const Tensor& w, int64_t m, int64_t n, int64_t k) {
  if (choose_gemm_path(wgmma_device_, wgmma_knob_, {true, m, n, k, 0}) != GemmPath::wgmma) return 1;
  if (forced_split_k_ > 0) return split_k_knob_ == SplitKKnob::off ? 1 : forced_split_k_;
  const std::string key =
      "split-K fp16 " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  if (auto it = split_ks_.find(key); it != split_ks_.end()) return it->second;
  const int units = static_cast<int>(runtime_->device().getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>());
  const std::vector<int> splits = split_k_candidates(m, n, k, units, split_k_knob_);
  if (splits.size() == 1) return split_ks_.emplace(key, 1).first->second;
  const PipeTile unsplit = pipe_tile(PipeKind::f16, x, w, m, n, k, {}, {}, GemmPath::wgmma);
  Tensor scratch = do_empty({m, n}, DType::f32);
  Tensor parts = do_empty({splits.back(), m, n}, DType::f32);
  const int mi = to_cl_int(m, "split m"), ni = to_cl_int(n, "split n");
  const size_t best = fastest_candidate(splits.size(), [&](size_t i) {
    if (splits[i] == 1)
      return launch_pipe(PipeKind::f16, unsplit, x, w, scratch, Epilogue{}, m, n, k, {}, {});
    launch_wgmma(kSplitTileN, x, w, parts, Epilogue{}, m, n, k, {}, splits[i]);
    const Tensor* no_bias = nullptr;
    launch_mma("axpby_strided", grid(n, m), cl::NDRange(kPackTile, kPackTile), parts, splits[i], mi,
               ni, 1.f, 0.f, scratch, 0, ni, no_bias, 0);
  });
  return split_ks_.emplace(key, splits[best]).first->second;
}

}  // namespace sb
