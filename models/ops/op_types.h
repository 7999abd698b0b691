#pragma once
// The op layer's argument types: activations, GEMM precisions and epilogues, prepared weights,
// and the shapes of the batched GEMM and the fused attentions (backend.h has the ops).
#include <cstdint>
#include <vector>

#include "models/ops/activation_codes.h"
#include "models/ops/tensor.h"

namespace sb {

// gelu is Enformer's approximation sigmoid(1.702 x) * x; gelu_erf is the exact
// 0.5 x (1 + erf(x / sqrt 2)) of PyTorch's nn.GELU() (DeepFM).
// leaky_relu has slope 0.01 below zero (MONAI's and PyTorch's default); sigmoid is 1/(1+e^-x).
// The values are the kernels' codes (activation_codes.h).
enum class Act : uint8_t {
  none = SB_ACT_NONE,
  relu = SB_ACT_RELU,
  gelu = SB_ACT_GELU,
  softplus = SB_ACT_SOFTPLUS,
  gelu_erf = SB_ACT_GELU_ERF,
  leaky_relu = SB_ACT_LEAKY_RELU,
  sigmoid = SB_ACT_SIGMOID
};

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
//   C_i = alpha * op(A_i) . op(B_i) + beta * C_i
// with op(A_i) = trans_a ? A_i[k, m]^T : A_i[m, k]. beta = 1 accumulates (gradients); beta = 0
// never reads C (it may hold garbage). `precision` is what the products may be computed in: f32
// (exact), or bf16/f16/tf32 operands with fp32 accumulation where the backend has such a unit
// (unsupported_reason() says when not).
//
// autotune (cudnn.benchmark's idea; f32 only, other precisions ignore it): on the first call with a
// shape key (m, n, k, trans_a, trans_b, beta != 0, item count, lda, ldb, ldc, and whether the items
// are evenly strided: each offset list an arithmetic progression with a step >= 0), the backend
// times each of its f32 candidate kernels for that key on a scratch copy of C (so beta is applied
// once: the call's C is written only by the chosen candidate, once), keeps the median-fastest and
// reuses it for every later call with the key. The cache lives in the backend object (one per
// device); Backend::autotune_choices() lists it. Candidates differ only in summation order: results
// stay within fp32 rounding of the untuned call.
//
// bias (a linear layer's; one item only, C its own contiguous [m, n]): C = alpha op(A) op(B) +
// beta C + bias, bias [n] added to every row. A backend adds it in the product's own epilogue
// where it can (CoreOps::fuses_gemm_bias), else as affine_channels after it.
struct GemmBatch {
  int64_t m = 0, n = 0, k = 0;
  bool trans_b = true;
  float alpha = 1.0f;
  int64_t lda = 0, ldb = 0, ldc = 0;
  std::vector<int64_t> a_offsets, b_offsets, c_offsets;
  bool trans_a = false;
  float beta = 0.0f;
  Precision precision = Precision::f32;
  bool autotune = false;
  const Tensor* bias = nullptr;
};

// Attention with a relative-position band (Transformer-XL's) over q, k [B, n, H*dk],
// v [B, n, H*dv] (q already scaled), rel_k [2n-1, H*dk] indexed by distance (j - i) + n - 1,
// content_bias and pos_bias [H*dk]:
//   logits[h,i,j] = (q_i + cb_h) . k_j + (q_i + pb_h) . rel_k[n-1+j-i]
//   out[b, i, h*dv:(h+1)*dv] = softmax_j(logits) . v
// `precision` is what the stage allows the products (f16: fp16 operands with fp32 accumulation
// and softmax); a backend without such a path computes in fp32.
struct RelAttentionShape {
  int64_t batch = 1, n = 0, heads = 0, dk = 0, dv = 0;
  Precision precision = Precision::f32;
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

// Inverted dropout with a counter-based mask: element i of a call keyed (seed, stream) is kept
// when hash(seed, stream, i) >= p (as a 24-bit fraction), and scaled by 1 / (1 - p). The mask
// depends on nothing but the key and the element index, so every backend and every stage draws
// the same masks, and the backward pass is the same op on the gradient with the same key.
struct DropoutKey {
  float p = 0.f;        // drop probability, [0, 1)
  uint64_t seed = 0;    // the run's seed
  uint64_t stream = 0;  // which call: (step, layer) folded by the caller
};

// One AdamW step over a parameter tensor (decoupled weight decay, Loshchilov & Hutter), as
// torch.optim.AdamW computes it:
//   g = grad * grad_scale;  m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
//   p = p (1 - lr wd) - lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
// weight_decay = 0 is Adam. grad_scale undoes a loss scale (1 / scale) under mixed precision.
struct AdamWStep {
  float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, weight_decay = 0.f;
  int64_t step = 1;  // t, from 1
  float grad_scale = 1.f;
};

// 3-D volumes (DynUNet). A volume tensor holds [N, C, D, H, W] (ncdhw, PyTorch's default) or
// [N, D, H, W, C] (ndhwc, channels-last) elements; the tensor's own shape may be either.
enum class Layout3d : uint8_t { ncdhw, ndhwc };

// A 3-D convolution, or a transposed one: input [N, in_channels, d, h, w] in `layout`, cubic
// kernel, same stride and padding on every axis. Weights keep PyTorch's layouts whatever the
// activations' layout: Conv3d [out, in, k, k, k], ConvTranspose3d [in, out, k, k, k].
struct Conv3dShape {
  int64_t batch = 1, in_channels = 0, out_channels = 0;
  int64_t d = 0, h = 0, w = 0;  // input spatial size
  int kernel = 3, stride = 1, padding = 1;
  Layout3d layout = Layout3d::ncdhw;
  // What a convolution's products may be computed in: f32 (exact), or tf32/bf16/f16 operands
  // with fp32 accumulation where the backend has such a unit for convolutions (the front asks
  // unsupported_reason(); a backend without a kernel refuses). Transposed convolutions: f32, or
  // bf16 (fronts_conv_transpose3d.cpp).
  Precision precision = Precision::f32;
  // Output spatial size: (n + 2 padding - kernel) / stride + 1 for a convolution;
  // (n - 1) stride - 2 padding + kernel for a transposed one.
  int64_t out_size(int64_t n, bool transposed) const {
    return transposed ? (n - 1) * stride - 2 * padding + kernel
                      : (n + 2 * padding - kernel) / stride + 1;
  }
};

// Applied by instance_norm as it stores: y = act(IN(x) + residual). The residual-add and the
// activation after a norm are then one pass over the volume instead of three (the "compile"
// stage's fusion); without them instance_norm is the plain norm.
struct NormEpilogue {
  const Tensor* residual = nullptr;  // x's element count; may be y itself, not x
  Act act = Act::none;
};

// Additive key mask value for padding: large enough that exp() of it is 0, finite so that
// arithmetic on it never makes NaN.
inline constexpr float kMaskedLogit = -1e30f;

}  // namespace sb
