// gemm_batched at bf16: which kernel runs the products (oneDNN builds only).
#include <stdexcept>

#include "models/ops/cpu/bf16_pack.h"
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/gemm_dnnl.h"
#include "models/ops/cpu/gemm_small.h"
#include "models/ops/cpu/host_storage.h"

namespace sb::cpu {

namespace {

// Items below this many multiply-adds (a 32^3 product) run as bf16-rounded operands through the
// f32 kernels (the tiniest rounded as they are read, gemm_small.h; the others packed). oneDNN's
// bf16 kernels gain nothing on items of 4 x 4 (AMX's tiles are 16 x 32), and its batched call cost
// more than the f32 kernel for DeepFM's 2,048 attention items of 4 x 4 x 32 (2.26 against 1.71 ms a
// step here, one thread). The results are the same products: bf16 x bf16 is exact in f32, and both
// accumulate in f32.
constexpr int64_t kSmallItemMacs = 32 * 32 * 32;

}  // namespace

bool CpuBackend::bf16_on_onednn(const GemmBatch& g) {
  return g.m * g.n * g.k >= kSmallItemMacs;
}

void CpuBackend::gemm_batched_bf16(const GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c,
                                   const float* bias) {
  if (bf16_on_onednn(g)) return dnnl_->gemm_batched(g, a, b, c, bias);
  if (bias != nullptr) throw std::logic_error("gemm_batched: a bias only on oneDNN's matmul");
  if (small_items(g))
    return gemm_small_items(g, f32_data(a, "gemm_batched A"), f32_data(b, "gemm_batched B"),
                            f32_data(c, "gemm_batched C"), true);
  const int64_t count = static_cast<int64_t>(g.a_offsets.size());
  Tensor pa = do_empty({count * g.m * g.k}, DType::f32);
  Tensor pb = do_empty({count * g.k * g.n}, DType::f32);
  float* ap = f32_data(pa, "gemm_batched bf16 A");
  float* bp = f32_data(pb, "gemm_batched bf16 B");
  // A and B dense in their stored orientations (the f32 kernels read either transpose; a
  // transposing pack is the slow one, gemm_dnnl.cpp).
  pack_bf16(f32_data(a, "gemm_batched A"), g.a_offsets, g.trans_a ? g.k : g.m,
            g.trans_a ? g.m : g.k, g.lda, false, ap);
  pack_bf16(f32_data(b, "gemm_batched B"), g.b_offsets, g.trans_b ? g.n : g.k,
            g.trans_b ? g.k : g.n, g.ldb, false, bp);
  GemmBatch packed = g;
  packed.lda = g.trans_a ? g.m : g.k;
  packed.ldb = g.trans_b ? g.k : g.n;
  packed.precision = Precision::f32;
  for (int64_t i = 0; i < count; ++i) {
    packed.a_offsets[i] = i * g.m * g.k;
    packed.b_offsets[i] = i * g.k * g.n;
  }
  gemm_batched_f32(default_batched_kernel(packed), packed, ap, bp, f32_data(c, "gemm_batched C"));
}

}  // namespace sb::cpu
