#pragma once
// The op layer. A model is written once against this interface; each backend (cpu: Eigen3 and
// oneDNN, opencl: own kernels and CLBlast) implements it. Stage switches never live here: the
// model picks which ops to call (separate passes or fused ones) from its stage's switches, and the
// precision of a GEMM is a property of its prepared Weight.
//
// Conventions: row-major, contiguous f32 activations; "rows" are the leading dimensions folded
// together, "channels" the last dimension. Outputs are written, never accumulated, unless said.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "collectors/allocation_tracker.h"
#include "collectors/kernel_log.h"
#include "models/ops/tensor.h"

namespace sb {

// GELU is the model's own approximation sigmoid(1.702 x) * x.
enum class Act : uint8_t { none, relu, gelu, softplus };

// Matmul precisions. tf32/f16/int8 mean tensor-core (or VNNI/AMX-class) kernels where present.
// bf16: bf16 operands, fp32 accumulate. int8: int8 weights with per-output-channel scales.
enum class Precision : uint8_t { f32, tf32, bf16, f16, int8 };
const char* precision_name(Precision p);

// y = residual + act(x W^T + bias): what a GEMM's epilogue applies before it stores.
struct Epilogue {
  const Tensor* bias = nullptr;  // [N]
  Act act = Act::none;
  const Tensor* residual = nullptr;  // [M, N]; may be the output tensor itself (in-place add)
};

// Applied to each input element as im2col gathers it: act(x * scale[c] + shift[c]).
// Padding positions stay zero (they pad the transformed input, as the unfused model does).
struct InputTransform {
  const Tensor* scale = nullptr;  // [C]
  const Tensor* shift = nullptr;  // [C]
  Act act = Act::none;
};

// A [N, K] matrix (Linear convention: out x in) prepared once for one precision. Backends
// may repack, convert or quantize; `scales` holds int8 per-output-channel scales.
struct Weight {
  Tensor data;
  Tensor scales;
  Precision precision = Precision::f32;
  int64_t n = 0;
  int64_t k = 0;
};

// Batched strided GEMM (attention heads): for item i,
//   C_i[m, n] = alpha * A_i[m, k] . (trans_b ? B_i[n, k]^T : B_i[k, n])
// where X_i starts at element x_offsets[i] of its tensor with leading dimension ldx.
struct GemmBatch {
  int64_t m = 0, n = 0, k = 0;
  bool trans_b = true;
  float alpha = 1.0f;
  int64_t lda = 0, ldb = 0, ldc = 0;
  std::vector<int64_t> a_offsets, b_offsets, c_offsets;
};

// Transformer-XL relative attention over q, k [B, n, H*dk], v [B, n, H*dv] (q already scaled),
// rel_k [2n-1, H*dk] indexed by distance (j - i) + n - 1, content_bias and pos_bias [H*dk]:
//   logits[h,i,j] = (q_i + cb_h) . k_j + (q_i + pb_h) . rel_k[n-1+j-i]
//   out[b, i, h*dv:(h+1)*dv] = softmax_j(logits) . v
struct RelAttentionShape {
  int64_t batch = 1, n = 0, heads = 0, dk = 0, dv = 0;
};

struct BackendMemory {
  const AllocationTracker* host = nullptr;    // host bytes of this backend's tensors
  const AllocationTracker* device = nullptr;  // device buffers (null on the cpu backend)
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;    // "cpu", "opencl"
  virtual std::string device() const = 0;  // human-readable device name

  // --- memory -------------------------------------------------------------------------
  virtual Tensor empty(std::vector<int64_t> shape, DType dtype = DType::f32) = 0;
  virtual Tensor upload(std::span<const float> host, std::vector<int64_t> shape) = 0;
  virtual std::vector<float> download(const Tensor& t) = 0;
  // Blocks until every op queued so far has finished (no-op on synchronous backends).
  virtual void synchronize() = 0;
  virtual BackendMemory memory() const = 0;
  // Kernel timings and transfers for the OpenCL collector; null where there are none.
  virtual KernelLog* kernel_log() { return nullptr; }

  // --- GEMM ---------------------------------------------------------------------------
  // Empty when this backend can run GEMMs at `p` here, else the reason it cannot.
  virtual std::string unsupported_reason(Precision p) const = 0;
  // w is [n, k] row-major f32 on the host.
  virtual Weight prepare_weight(std::span<const float> w, int64_t n, int64_t k, Precision p) = 0;
  // y[M, N] = epilogue(x[M, K] . W^T); M = x.numel() / K.
  virtual void linear(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep = {}) = 0;
  virtual void gemm_batched(const GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c) = 0;

  // --- data movement ------------------------------------------------------------------
  // 'same'-padded 1-D convolution input [B, L, C] -> cols [B*L, k*C], column index j*C + c
  // holding x[b, l + j - k/2, c] (zero outside), optionally transformed on the fly.
  virtual void im2col(const Tensor& x, int k, Tensor& cols, const InputTransform& t = {}) = 0;
  // y[b, r, :] = x[b, start + r, :] for r < y.dim(1); x is [B, L, C].
  virtual void copy_rows(const Tensor& x, int64_t start, Tensor& y) = 0;

  // --- elementwise (y may alias x) ----------------------------------------------------
  // y = x * scale[c] + shift[c]; either may be null (then 1 and 0).
  virtual void affine_channels(const Tensor& x, const Tensor* scale, const Tensor* shift,
                               Tensor& y) = 0;
  virtual void sigmoid_scaled(const Tensor& x, float alpha, Tensor& y) = 0;  // sigmoid(alpha x)
  virtual void mul(const Tensor& a, const Tensor& b, Tensor& y) = 0;
  virtual void add(const Tensor& a, const Tensor& b, Tensor& y) = 0;
  virtual void activation(const Tensor& x, Act act, Tensor& y) = 0;  // one pass

  // --- normalization and softmax -----------------------------------------------------
  // LayerNorm over the last dimension. one_pass=false: three passes (row means, row variances
  // of the centred values, normalize) with the statistics materialized; true: one Welford pass.
  virtual void layernorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps,
                         Tensor& y, bool one_pass) = 0;
  // In-place softmax over the last dimension.
  virtual void softmax_rows(Tensor& x) = 0;

  // --- Enformer-specific ---------------------------------------------------------------
  // x, logits [B, L, C] -> y [B, L/2, C]: per channel, softmax over each pair of positions
  // (2l, 2l+1), y = sum of x * weights. one_pass=false materializes the weights first.
  virtual void attention_pool(const Tensor& x, const Tensor& logits, Tensor& y, bool one_pass) = 0;
  // logits[b,h,i,j] += rel[b,h,i,(n-1)+(j-i)]; logits [B*H, n, n], rel [B*H, n, 2n-1].
  virtual void rel_shift_add(Tensor& logits, const Tensor& rel) = 0;
  // One streaming kernel with online softmax; no n x n buffer.
  virtual void rel_attention_fused(const RelAttentionShape& s, const Tensor& q, const Tensor& k,
                                   const Tensor& v, const Tensor& rel_k, const Tensor& content_bias,
                                   const Tensor& pos_bias, Tensor& out) = 0;
};

}  // namespace sb
