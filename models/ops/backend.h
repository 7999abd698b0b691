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

#include "instrument/allocation_tracker.h"
#include "instrument/kernel_log.h"
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
  // int8 only: the calibrated range [lo, hi] of this GEMM's input, per tensor (static
  // quantization). Unset (lo == hi == 0): quantized per call from the input's own range.
  float input_lo = 0.f, input_hi = 0.f;
  bool calibrated() const { return input_hi > input_lo; }
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

// Multi-head attention with a key-padding mask (BERT), fused: one streaming kernel with online
// softmax, no heads x n x n buffer. Head h of token i of item b reads
//   q[(b*n + i)*ld_q + q_col + h*dh + d]   (likewise k, v with their ld and col)
// so one packed [B, n, 3D] QKV tensor serves as q, k and v. out[(b*n+i)*ld_out + h*dh + d].
//   out_i = softmax_j(scale * q_i . k_j + key_bias[b, j]) . v_j
// `precision` is what the kernel may compute in: f32 (exact), tf32 or f16 (tensor cores where
// present, fp32 softmax and accumulation; a backend without them computes in fp32).
struct AttentionShape {
  int64_t batch = 1, n = 0, heads = 0, dh = 0;
  float scale = 1.f;
  int64_t ld_q = 0, ld_k = 0, ld_v = 0, ld_out = 0;
  int64_t q_col = 0, k_col = 0, v_col = 0;
  Precision precision = Precision::f32;
};

// Additive key mask value for padding: large enough that exp() of it is 0, finite so that
// arithmetic on it never makes NaN.
inline constexpr float kMaskedLogit = -1e30f;

// Non-const: whoever reads the trackers (the memory collector) also starts new peak windows.
struct BackendMemory {
  AllocationTracker* host = nullptr;    // host bytes of this backend's tensors
  AllocationTracker* device = nullptr;  // device buffers (null on the cpu backend)
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
  // Integer data (token ids): an i32 tensor.
  virtual Tensor upload_ids(std::span<const int32_t> host, std::vector<int64_t> shape) = 0;
  // Blocks until every op queued so far has finished (no-op on synchronous backends).
  virtual void synchronize() = 0;
  virtual BackendMemory memory() = 0;
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

  // --- BERT-style encoders --------------------------------------------------------------
  // Embedding lookup: ids [B, S] (i32), table [V, D] -> y [B, S, D] with
  //   y[b, s, :] = table[ids[b, s], :] + (rows ? rows[s, :] : 0)     (rows [>= S, D])
  // An id outside [0, V) is an error (the cpu backend says which; a device clamps it).
  virtual void embedding(const Tensor& table, const Tensor& ids, const Tensor* rows, Tensor& y) = 0;
  // logits [B*heads, n, n] += key_bias[b, j] for item b*heads + h; key_bias [B, n].
  virtual void add_key_bias(Tensor& logits, const Tensor& key_bias, int64_t heads) = 0;
  // y = LayerNorm(x + residual) in one pass (residual+LayerNorm fusion); y may alias either.
  virtual void add_layernorm(const Tensor& x, const Tensor& residual, const Tensor& gamma,
                             const Tensor& beta, float eps, Tensor& y) = 0;
  // Weighted mean over tokens: x [B, S, D], weights [B, S] (1 token, 0 padding) -> y [B, D],
  //   y[b] = sum_s weights[b, s] x[b, s] / sum_s weights[b, s]   (0 where no weight).
  virtual void masked_mean(const Tensor& x, const Tensor& weights, Tensor& y) = 0;
  virtual void attention_fused(const AttentionShape& s, const Tensor& q, const Tensor& k,
                               const Tensor& v, const Tensor* key_bias, Tensor& out) = 0;

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
