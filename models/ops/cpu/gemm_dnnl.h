#pragma once
// bf16 and int8 GEMMs through oneDNN's matmul (brgemm kernels: avx512_core_bf16, VNNI), and the
// f32 linear and batched products.
// Only compiled when STAGEBENCH_HAVE_DNNL is set; the header needs no oneDNN include.
#include <memory>
#include <span>
#include <string>

#include "instrument/allocation_tracker.h"
#include "models/ops/backend.h"

namespace sb::cpu {

class DnnlGemm {
 public:
  explicit DnnlGemm(std::shared_ptr<AllocationTracker> tracker);
  ~DnnlGemm();
  DnnlGemm(const DnnlGemm&) = delete;
  DnnlGemm& operator=(const DnnlGemm&) = delete;

  // Empty when oneDNN runs precision p (bf16 or int8) on this CPU, else why not.
  static std::string unsupported_reason(Precision p);
  // Converts (bf16) or quantizes (int8, symmetric per output channel) w [n, k] once, into the
  // blocked layout oneDNN's matmul prefers.
  Weight prepare(std::span<const float> w, int64_t n, int64_t k, Precision p);
  // y[M, N] = epilogue(x[M, K] . W^T) with f32 x and y. An f32 weight is the plain [N, K]
  // tensor, read in place (every other op reads it too); bf16 and int8 ones come from prepare().
  void linear(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep);
  // gemm_batched at bf16 (GemmBatch, validated): A and B rounded to bf16 (nearest even) and
  // packed densely in their stored orientations, in parallel (a transposed A handed over as a
  // transposed view where oneDNN has an optimized kernel for it, else packed as op(A)); one
  // batched matmul with fp32 accumulation, writing C
  // itself (alpha as output scale, beta as a sum post-op) when the items' C steps evenly, else
  // an f32 scratch and C = alpha T + beta C in fp32.
  // bias (f32 [n], or null): added in the matmul's epilogue, for one product only (g.bias is
  // not read: the caller says whether the bias is this call's to add).
  void gemm_batched(const GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c,
                    const float* bias = nullptr);
  // gemm_batched in f32 (an autotune candidate) on raw pointers to A, B and C's storage: one
  // batched matmul when every offset list steps evenly by > 0, else one matmul per item; alpha
  // as output scale and beta as a sum post-op (beta = 0 never reads C).
  // bias as in gemm_batched (here for any batch: broadcast over rows and items).
  void gemm_batched_f32(const GemmBatch& g, const float* a, const float* b, float* c,
                        const float* bias = nullptr);
  // Whether gemm_batched_f32 takes g as one 4-D matmul: its offsets, unevenly stepped, form a
  // grid (item i at o0 + (i / inner) outer_step + (i % inner) inner_step, the same inner count
  // for A, B and C: an attention's items b * n * ld + h * dh) on which oneDNN has an optimized
  // (not reference) kernel. Asked once per shape.
  bool takes_as_grid(const GemmBatch& g);
  // Backend::hold_read_only's promise for t's storage: gemm_batched reads an operand that lies
  // densely inside a held tensor from its bf16 image (bf16_images.h) instead of packing it.
  void hold_read_only(const float* data, int64_t numel);
  void release_read_only(const float* data);
  size_t bf16_image_blocks() const;  // blocks converted so far (tests)

 private:
  void grid_f32(const GemmBatch& g, const float* a, const float* b, float* c);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sb::cpu
