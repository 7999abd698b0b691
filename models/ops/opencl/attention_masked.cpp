// Masked multi-head attention (BERT's), fused: the portable streaming kernel
// (kernels/attention_masked.cl, one copy per head width) or, for fp16 and tf32 on NVIDIA, tensor
// cores (kernels/attention_mma_nvidia.cl: one body, attention_mma_body.cl, per precision).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/ops/activation_codes.h"
#include "models/ops/opencl/attention_choice.h"
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

const FusedAttentionKernel* OpenCLBackend::fused_attention_kernel(int64_t dh) const {
  const size_t limit = runtime_->local_mem_bytes();
  if (fused_attention_built_bytes_.empty()) {
    // The compiler's own figure, not local_bytes(): it may add local memory of its own. The
    // backend is never const itself; only this query is, so building the program here is sound.
    auto* self = const_cast<OpenCLBackend*>(this);
    for (const FusedAttentionKernel& k : kFusedAttentionKernels)
      fused_attention_built_bytes_.push_back(k.local_bytes() + kCompilerLocalSlack <= limit
                                                 ? self->kernel_local_mem_bytes(k.name)
                                                 : 0);
  }
  for (size_t i = 0; i < std::size(kFusedAttentionKernels); ++i) {
    const uint64_t built = fused_attention_built_bytes_[i];
    if (kFusedAttentionKernels[i].width >= dh && built != 0 && built <= limit)
      return &kFusedAttentionKernels[i];
  }
  return nullptr;
}

std::string OpenCLBackend::fused_attention_choice(int64_t dh) const {
  const FusedAttentionKernel* k = fused_attention_kernel(dh);
  return k == nullptr ? std::string() : k->name;
}

std::string OpenCLBackend::attention_fused_unsupported(int64_t dh) const {
  const int widest = kFusedAttentionKernels[std::size(kFusedAttentionKernels) - 1].width;
  if (dh > widest)
    return "head width dh = " + std::to_string(dh) + " exceeds the " + std::to_string(widest) +
           " the OpenCL kernels support";
  if (fused_attention_kernel(dh) == nullptr)
    return "no OpenCL kernel for head width dh = " + std::to_string(dh) + " fits the " +
           std::to_string(runtime_->local_mem_bytes()) + " bytes of local memory of " +
           device_name_;
  return {};
}

void OpenCLBackend::do_attention_fused(const AttentionShape& s, const Tensor& q, const Tensor& k,
                                       const Tensor& v, const Tensor* key_bias, Tensor& out) {
  if (const std::string why = attention_fused_unsupported(s.dh); !why.empty())
    throw std::invalid_argument("attention_fused: " + why);
  // fp16 on NVIDIA tensor cores where the stage allows it (head size 64: Geneformer, BERT);
  // every other case computes in fp32.
  const bool f16_io = q.dtype() == DType::f16 || k.dtype() == DType::f16 ||
                      v.dtype() == DType::f16 || out.dtype() == DType::f16;
  if ((s.precision == Precision::f16 || s.precision == Precision::tf32) && s.dh == 64 &&
      has_mma() && (!f16_io || s.precision == Precision::f16)) {
    attention_mma(s, q, k, v, key_bias, out);
    return;
  }
  if (f16_io)  // only the f16 tensor-core kernel reads and writes f16 activations (issue 27)
    throw std::invalid_argument(
        "attention_fused: f16 q, k, v or out need fp16 tensor cores "
        "(NVIDIA, head width 64), not " +
        std::string(precision_name(s.precision)) + " on " + device_name_);
  attention_fused_portable(s, q, k, v, key_bias, out);
}

void OpenCLBackend::attention_mma(const AttentionShape& s, const Tensor& q, const Tensor& k,
                                  const Tensor& v, const Tensor* key_bias, Tensor& out) {
  // Must match FA_QUERIES, FA_KEYS and FA_THREADS in kernels/attention_mma_body.cl and
  // attention_mma_nvidia.cl (64 queries a 16-query block of each warp; tf32 has one block); the
  // packing kernels have 256 items. f16 K and V are read in place where attention_choice() allows.
  constexpr size_t kKeys = 64, kThreads = 128, kPackThreads = 256;
  const auto i = [](int64_t x) { return static_cast<int>(x); };
  const bool tf32 = s.precision == Precision::tf32;
  const int64_t n_pad = (s.n + 63) / 64 * 64, items = s.batch * s.heads;
  if (k.dtype() != v.dtype())
    throw std::invalid_argument("attention_fused: k and v must share a dtype");
  // f16: which of q, k (and v) and out hold half bits.
  const int halves =
      (q.dtype() == DType::f16 ? ACT_HALF_X : 0) | (out.dtype() == DType::f16 ? ACT_HALF_Y : 0);
  const AttentionChoice choice = tf32 ? AttentionChoice{1, false, false} : attention_choice();
  // has_bias: 2 also skips the key tiles past each item's last unmasked key (attention_trim)
  const int bias_mode = key_bias ? (attention_trim() ? 2 : 1) : 0;
  // Read in place: K and V rows as 16-byte pieces (cp.async), so every offset in halves is a
  // multiple of 8.
  const bool aligned = s.ld_k % 8 == 0 && s.ld_v % 8 == 0 && s.k_col % 8 == 0 && s.v_col % 8 == 0;
  const size_t queries = 64 * static_cast<size_t>(choice.blocks);
  const size_t groups = (static_cast<size_t>(s.n) + queries - 1) / queries;
  const cl::NDRange global(groups * kThreads, static_cast<size_t>(items));
  if (choice.direct && k.dtype() == DType::f16 && aligned) {
    launch_mma(choice.fast ? "attention_f16_direct" : "attention_f16_direct_plain", global,
               cl::NDRange(kThreads, 1), q, k, v, key_bias, bias_mode, i(s.n), i(n_pad), i(s.heads),
               i(s.ld_q), i(s.ld_out), i(s.q_col), s.scale, out, halves, i(s.ld_k), i(s.ld_v),
               i(s.k_col), i(s.v_col));
    return;
  }
  Tensor kp = empty({items, n_pad, s.dh}, tf32 ? DType::f32 : DType::f16);
  Tensor vt = empty({items, s.dh, n_pad}, tf32 ? DType::f32 : DType::f16);
  const cl::NDRange pack_global(static_cast<size_t>(n_pad) / kKeys * kPackThreads,
                                static_cast<size_t>(items));
  const int half_in = k.dtype() == DType::f16 ? 1 : 0;
  // One body a family (kernels/attention_pack_body.cl, attention_mma_body.cl): both precisions
  // take the same arguments.
  launch_mma(tf32 ? "attention_pack_tf32" : "attention_pack_f16", pack_global,
             cl::NDRange(kPackThreads, 1), k, v, i(s.n), i(n_pad), i(s.heads), i(s.ld_k), i(s.ld_v),
             i(s.k_col), i(s.v_col), kp, vt, half_in);
  const char* kernel = tf32                 ? "attention_tf32_mma"
                       : choice.blocks == 2 ? "attention_f16_mma_x2"
                                            : "attention_f16_mma";
  launch_mma(kernel, global, cl::NDRange(kThreads, 1), q, kp, vt, key_bias, bias_mode, i(s.n),
             i(n_pad), i(s.heads), i(s.ld_q), i(s.ld_out), i(s.q_col), s.scale, out, halves);
}

void OpenCLBackend::attention_fused_portable(const AttentionShape& s, const Tensor& q,
                                             const Tensor& k, const Tensor& v,
                                             const Tensor* key_bias, Tensor& out) {
  const FusedAttentionKernel& kernel = *fused_attention_kernel(s.dh);  // do_ has checked it
  const size_t queries = static_cast<size_t>(kernel.queries);
  // (batch, head) along dimension 0: some drivers cap the work-group count of the others
  // at 65535.
  const size_t query_groups = (static_cast<size_t>(s.n) + queries - 1) / queries;
  const cl::NDRange global(static_cast<size_t>(s.batch * s.heads) * queries, query_groups);
  launch(kernel.name, global, cl::NDRange(queries, 1), q, k, v, key_bias, key_bias ? 1 : 0, s.n,
         s.heads, s.dh, s.scale, s.ld_q, s.ld_k, s.ld_v, s.ld_out, s.q_col, s.k_col, s.v_col, out);
}

}  // namespace sb
