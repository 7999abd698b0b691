#pragma once
// The general ops of the op layer (backend.h states its conventions and validation policy): memory,
// GEMMs and 1-D convolutions, data movement, elementwise ops, normalization, reductions,
// attention, and training's transfers, backward passes, losses and optimizer. Families of ops
// with a narrower use have their own header and class on top of this one (volume_ops.h); every
// backend implements them all through Backend (backend.h).
//
// Each op is a non-virtual front (backend.cpp, fronts_training.cpp) that validates its arguments,
// then calls the backend's protected do_<op>, declared from op_list.h.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "instrument/allocation_tracker.h"
#include "instrument/kernel_log.h"
#include "models/ops/host_staging.h"
#include "models/ops/launch_list.h"
#include "models/ops/op_list.h"
#include "models/ops/op_names.h"
#include "models/ops/op_types.h"
#include "models/ops/tensor.h"

namespace sb {

// Non-const: whoever reads the trackers (the memory collector) also starts new peak windows.
struct BackendMemory {
  AllocationTracker* host = nullptr;    // host bytes of this backend's tensors
  AllocationTracker* device = nullptr;  // device buffers (null on the cpu backend)
};

class CoreOps {
 public:
  virtual ~CoreOps() = default;

  // --- properties (not ops: nothing to validate) ----------------------------------------
  virtual std::string name() const = 0;    // "cpu", "opencl"
  virtual std::string device() const = 0;  // human-readable device name
  virtual BackendMemory memory() = 0;
  // Kernel timings and transfers for the OpenCL collector; null where there are none.
  virtual KernelLog* kernel_log() { return nullptr; }
  // Host memory to stage transfers in (host_staging.h): page-locked where the device has it.
  virtual std::unique_ptr<HostStaging> host_staging(size_t bytes) {
    return std::make_unique<PageableStaging>(bytes);
  }
  // Empty when this backend can run GEMMs at `p` here, else the reason it cannot.
  virtual std::string unsupported_reason(Precision p) const = 0;
  // Empty when attention_fused has a kernel for heads of width `dh` here, else the reason it
  // has none (a model then computes attention unfused and records why).
  virtual std::string attention_fused_unsupported(int64_t /*dh*/) const { return {}; }
  // Blocks until every op queued so far has finished (no-op on synchronous backends).
  virtual void synchronize() = 0;
  // What gemm_batched's autotuning (GemmBatch::autotune) chose on this backend: one (shape key,
  // candidate kernel) pair per key tuned so far, in key order; empty where nothing was tuned.
  virtual std::vector<std::pair<std::string, std::string>> autotune_choices() const { return {}; }
  // How the backend's library kernels are tuned for this device ("CLBlast tuned on this
  // device: FILE", "CLBlast defaults ..."); "" where there is nothing to say. Runs record it.
  virtual std::string library_tuning() const { return ""; }
  // Which tensor-core GEMM paths this device offers and why ("wgmma: on (...)", "wgmma: off:
  // compute capability 8.9, ..."); "" where there is no choice to report. Runs record it in
  // params.gemm_paths; which path each stage's GEMMs took is the stage's gemm_path.
  virtual std::string gemm_paths() const { return ""; }
  // Whether do_gemm_batched adds g.bias itself (in the product's epilogue); when not,
  // gemm_batched adds it after the product with do_affine_channels.
  virtual bool fuses_gemm_bias(const GemmBatch& g) const {
    (void)g;
    return false;
  }
  // A promise from the caller: from hold_read_only(t) until the matching release, nothing writes
  // t. A backend may keep forms derived from t's contents meanwhile and reuse them (the OpenCL
  // backend: the bf16 copy its bf16 convolutions read, made once instead of at every call that
  // reads t). Holds nest (counted); the default keeps nothing. HeldReadOnly pairs them in a scope.
  virtual void hold_read_only(const Tensor& t) { (void)t; }
  virtual void release_read_only(const Tensor& t) { (void)t; }
  // A notice ahead of the hold: the next op that writes t is the last before hold_read_only(t),
  // and what reads t under the hold reads it at precision `read_as`. A backend may have that op
  // write the derived form as it goes (the OpenCL backend: an instance norm writes the bf16 copy
  // beside its fp32 output) instead of a pass over t at the first read. A later notice for the
  // same storage replaces it; the hold takes it up. The default keeps nothing.
  virtual void will_hold_read_only(const Tensor& t, Precision read_as) {
    (void)t;
    (void)read_as;
  }
  // Recorded launch lists (launch_list.h; replay35).
  // "" when this backend can record a launch list here, else why it cannot.
  virtual std::string launch_recording_unsupported() const {
    return "the " + name() + " backend launches no kernels: there is no launch list to record";
  }
  // From begin to end, every op runs as usual and the kernels it launches are kept; end returns
  // them as a LaunchList, or throws RecordingRefused naming the first command a list cannot
  // hold (the recording is over either way). Recordings do not nest.
  virtual void begin_launch_recording() { throw RecordingRefused(launch_recording_unsupported()); }
  virtual std::unique_ptr<LaunchList> end_launch_recording() {
    throw RecordingRefused(launch_recording_unsupported());
  }

  // --- memory ---------------------------------------------------------------------------
  Tensor empty(std::vector<int64_t> shape, DType dtype = DType::f32);
  Tensor upload(std::span<const float> host, std::vector<int64_t> shape);
  // Token ids as an i32 tensor, their range recorded for the ops that check them (above).
  Tensor upload_ids(std::span<const int32_t> host, std::vector<int64_t> shape);
  std::vector<float> download(const Tensor& t);

  // --- GEMM -----------------------------------------------------------------------------
  // w is [n, k] row-major f32 on the host; n, k > 0; p must be supported here.
  Weight prepare_weight(std::span<const float> w, int64_t n, int64_t k, Precision p);
  // y[M, N] = epilogue(x[M, K] . W^T); M = x.numel() / K. y must not be x or the bias; the
  // residual may be y itself (an in-place add).
  void linear(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep = {});
  // Every item must lie inside its tensor (offsets and leading dimensions checked); k > 0
  // unless there is nothing to write; c must not be a or b (a may be b).
  void gemm_batched(const GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c);
  // The gradients of y = x W^T + b, x [rows, in], W [out, in], dy [rows, out] (f32): dW = dy^T x,
  // db [out] = dy's column sums and, where dx is set, dx = dy W + dx_beta dx, the products at
  // precision p (autotune as GemmBatch's). Checked and counted as gemm_batched; the default is
  // those two gemm_batched calls and sum_axis1, and a backend may share the three's work (the
  // OpenCL backend: one launch packs both products' f16 operands and sums db, dfm36).
  void linear_backward(const Tensor& x, const Tensor& dy, const Tensor& w, Tensor& dw, Tensor& db,
                       Tensor* dx, float dx_beta, Precision p, bool autotune);
  // 'same'-padded 1-D convolution, channels last: y[B, L, N] = epilogue(im2col(x, k, t) . W^T)
  // with x [B, L, C], W [N, k*C] in im2col's column order, k odd. Padding is zero after the
  // transform, as im2col's. A backend that gathers the columns first writes them to `columns`
  // ([B*L, k*C], the caller's memory plan) when given, else to memory of its own; one that
  // reads x in place (an implicit GEMM) says so through conv1d_gathers_columns.
  void conv1d(const Tensor& x, int k, const Weight& w, Tensor& y, const Epilogue& ep = {},
              const InputTransform& t = {}, Tensor* columns = nullptr);
  virtual bool conv1d_gathers_columns(int k, const Weight& w, int64_t channels) const {
    return true;
  }

  // --- data movement --------------------------------------------------------------------
  // 'same'-padded 1-D convolution input [B, L, C] -> cols [B*L, k*C], column index j*C + c
  // holding x[b, l + j - k/2, c] (zero outside), optionally transformed on the fly; k > 0.
  void im2col(const Tensor& x, int k, Tensor& cols, const InputTransform& t = {});
  // y[b, r, :] = x[b, start + r, :] for r < y.dim(1); x is [B, L, C], y [B, rows, C].
  void copy_rows(const Tensor& x, int64_t start, Tensor& y);
  // y = x element by element, each fp32 or f16 (an activation: f16 where the backend has f16
  // kernels), rounded to nearest even on the way to f16. For an input that a half-precision
  // stage holds in f16 but that no op of the stage produces (a workload's own data).
  void convert(const Tensor& x, Tensor& y);
  // Embedding lookup: ids [B, S] (i32, from upload_ids), table [V, D] -> y [B, S, D] with
  //   y[b, s, :] = table[ids[b, s], :] + (rows ? rows[s, :] : 0)     (rows [>= S, D])
  // An id outside [0, V) is an error naming the id and its position.
  void embedding(const Tensor& table, const Tensor& ids, const Tensor* rows, Tensor& y);

  // --- elementwise (same element counts; y may be an input) ---------------------------
  // y = x * scale[c] + shift[c] over channels c; either may be null (then 1 and 0).
  void affine_channels(const Tensor& x, const Tensor* scale, const Tensor* shift, Tensor& y);
  void sigmoid_scaled(const Tensor& x, float alpha, Tensor& y);  // sigmoid(alpha x)
  void mul(const Tensor& a, const Tensor& b, Tensor& y);
  void add(const Tensor& a, const Tensor& b, Tensor& y);
  void activation(const Tensor& x, Act act, Tensor& y);  // one pass

  // --- normalization and softmax --------------------------------------------------------
  // LayerNorm over the last dimension in one pass per row (Welford); y may be x; eps >= 0.
  void layernorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps, Tensor& y);
  // y = LayerNorm(x + residual) in one pass (residual+LayerNorm fusion); y may be either input.
  void add_layernorm(const Tensor& x, const Tensor& residual, const Tensor& gamma,
                     const Tensor& beta, float eps, Tensor& y);
  // y[r, c] = (x[r, c] - mean[r]) / sqrt(var[r] + eps) * gamma[c] + beta[c], statistics from
  // row_moments: with it, LayerNorm as separate passes. y may be x.
  void normalize_rows(const Tensor& x, const Tensor& mean, const Tensor& var, const Tensor& gamma,
                      const Tensor& beta, float eps, Tensor& y);
  // In-place softmax over the last dimension.
  void softmax_rows(Tensor& x);
  // x [outer, n, inner]: softmax over n for each (outer, inner). y may be x.
  void softmax_axis1(const Tensor& x, Tensor& y);

  // --- reductions (outputs must not be inputs) --------------------------------------------
  // Per row of x [rows, C]: mean[r], then var[r] = the mean of (x - mean[r])^2, in two passes
  // (exact, not Welford), both materialized. C > 0 unless there are no rows.
  void row_moments(const Tensor& x, Tensor& mean, Tensor& var);
  // x [outer, n, inner] -> y [outer, inner]: y[o, i] = sum_j w[o, j, i] x[o, j, i], with
  // weights of x's shape, or 1 when null. An empty sum (n = 0) is 0.
  void sum_axis1(const Tensor& x, const Tensor* weights, Tensor& y);
  // Weighted mean over tokens: x [B, S, D], weights [B, S] (1 token, 0 padding) -> y [B, D],
  //   y[b] = sum_s weights[b, s] x[b, s] / sum_s weights[b, s]   (0 where no weight).
  void masked_mean(const Tensor& x, const Tensor& weights, Tensor& y);

  // --- attention (outputs must not be inputs, but for the in-place logits) -------------
  // logits [B*heads, n, n] += key_bias[b, j] for item b*heads + h; key_bias [B, n].
  void add_key_bias(Tensor& logits, const Tensor& key_bias, int64_t heads);
  // logits[b,h,i,j] += rel[b,h,i,(n-1)+(j-i)]; logits [B*H, n, n], rel [B*H, n, 2n-1].
  void rel_shift_add(Tensor& logits, const Tensor& rel);
  // Masked multi-head attention (AttentionShape), one streaming kernel with online softmax.
  // Every operand holds exactly [B, n, ld] elements; its heads' columns fit inside ld.
  void attention_fused(const AttentionShape& s, const Tensor& q, const Tensor& k, const Tensor& v,
                       const Tensor* key_bias, Tensor& out);
  // Attention with a relative-position band (RelAttentionShape): each logit adds a query's
  // product with the embedding of the key's offset, one of the 2n-1 rows of rel_k (a
  // Transformer-XL attention; Enformer's, and any model with learned or fixed relative
  // positions). One streaming kernel with online softmax; no n x n buffer. Unfused, it is
  // affine_channels (the biases), gemm_batched (both products), rel_shift_add (the band onto
  // the logits), softmax_rows and gemm_batched.
  void rel_attention_fused(const RelAttentionShape& s, const Tensor& q, const Tensor& k,
                           const Tensor& v, const Tensor& rel_k, const Tensor& content_bias,
                           const Tensor& pos_bias, Tensor& out);
  // Attention pooling over pairs of positions, x, logits [B, L, C] (L even) -> y [B, L/2, C]:
  // per channel, softmax over each pair (2l, 2l+1), y = sum of x * weights, in one pass. The
  // separate passes are softmax_axis1 and sum_axis1 over the [B*L/2, 2, C] view. t, where set,
  // is applied to each pooled value before it is stored (y = act(pooled * scale + shift)): the
  // next conv block's input transform, when y's only reader is that conv (Enformer's tower).
  void attention_pool(const Tensor& x, const Tensor& logits, Tensor& y,
                      const InputTransform& t = {});

  // --- training: transfers into existing tensors ----------------------------------------
  // Copies host values into an existing tensor of the same element count (any shape).
  // blocking = false queues the copy and returns: the host memory must stay untouched until
  // synchronize().
  // write_ids records the ids' range as upload_ids does.
  void write(std::span<const float> host, Tensor& t, bool blocking = true);
  void write_ids(std::span<const int32_t> host, Tensor& t, bool blocking = true);
  // y[...] = value.
  void fill(Tensor& y, float value);

  // --- training: columns (rows are every dimension but the last) ------------------------
  // y [R, sum C_i] = the inputs [R, C_i] side by side (torch.cat(dim=-1)); y is none of them.
  void concat_last(std::span<const Tensor* const> xs, Tensor& y);
  // y [R, K] = x[R, start : start + K] (the backward of concat_last).
  void slice_last(const Tensor& x, int64_t start, Tensor& y);
  // y [R, K]: y[r, j] = x[r, index[j]], every index in [0, C).
  void gather_cols(const Tensor& x, std::span<const int64_t> index, Tensor& y);
  // x [R, C] += the scatter of y [R, K]: x[r, index[j]] += y[r, j] (accumulates; repeated
  // indices add up). The backward of gather_cols.
  void scatter_add_cols(const Tensor& y, std::span<const int64_t> index, Tensor& x);

  // --- training: backward of the forward ops ----------------------------------------------
  // dtable [V, D] += the rows of dy [B, S, D] at ids [B, S] (accumulates; deterministic: the
  // same sums in the same order on every run).
  void embedding_backward(const Tensor& dy, const Tensor& ids, Tensor& dtable);
  // dx = dy * act'(x), x being the activation's input; dx may be dy (not x). relu'(0) = 0.
  void activation_backward(const Tensor& x, const Tensor& dy, Act act, Tensor& dx);
  // Backward of layernorm(x, gamma, beta, eps) over the last dimension, statistics recomputed
  // from x: dx [R, C]; dgamma, dbeta [C] written (not accumulated; summed over rows in an order
  // that does not depend on threads). dx may be dy. With no rows the front fills dgamma and
  // dbeta with 0 itself.
  void layernorm_backward(const Tensor& x, const Tensor& gamma, float eps, const Tensor& dy,
                          Tensor& dx, Tensor& dgamma, Tensor& dbeta);
  // y = softmax_rows(x): dx[r, :] = y[r, :] * (dy[r, :] - sum_c dy[r, c] y[r, c]). dx may be dy.
  void softmax_rows_backward(const Tensor& y, const Tensor& dy, Tensor& dx);
  // y = dropout(x) under `key` (op_types.h; the mask is dropout_hash.h's); y may be x. p = 0
  // copies. p outside [0, 1) is an error.
  void dropout(const Tensor& x, const DropoutKey& key, Tensor& y);
  // Two passes in one (DeepFM's FFN and deep layers, dfm35): y = dropout(act(x)), y may be x;
  // and the backward of both, dx = act'(x) * dropout(dy) under the same key, dx may be dy (not
  // x). Each equals its two ops in sequence exactly (the same float operations).
  void activation_dropout(const Tensor& x, Act act, const DropoutKey& key, Tensor& y);
  void dropout_activation_backward(const Tensor& x, const Tensor& dy, Act act,
                                   const DropoutKey& key, Tensor& dx);

  // --- training: losses, each the mean PyTorch's reduction="mean" takes ----------------------
  // Both write their loss into loss[slot] and dlogits = scale * d(loss)/d(logits); scale
  // carries the upstream gradient (task weights, a loss scale); the loss itself is unscaled.
  // dlogits is not logits; loss is none of the other tensors; slot in [0, loss.numel()).
  // Empty logits are an error (the mean of nothing). The loss is summed deterministically.
  // Multi-label BCE with logits over logits, targets [R, C] (targets in [0, 1], not checked):
  //   loss = mean over all N elements of max(z, 0) - z t + log1p(exp(-|z|))
  //   dlogits = scale * (sigmoid(z) - t) / N
  void bce_with_logits(const Tensor& logits, const Tensor& targets, float scale, Tensor& loss,
                       int64_t slot, Tensor& dlogits);
  // Cross-entropy over logits [R, C] (rank 2) against labels [R] (i32, from upload_ids/write_ids,
  // each in [0, C)), with optional class weights w [C] and label smoothing eps in [0, 1), as
  // torch.nn.functional.cross_entropy(weight=w, label_smoothing=eps, reduction='mean'):
  //   loss = sum_r [(1-eps) w[y_r] (-log p[r,y_r]) + (eps/C) sum_c w[c] (-log p[r,c])]
  //          / sum_r w[y_r]                                  (w = 1 without weights)
  //   dlogits[r,j] = scale / sum_r w[y_r] * (p[r,j] ((1-eps) w[y_r] + (eps/C) sum_c w[c])
  //                  - (1-eps) w[y_r] [j = y_r] - (eps/C) w[j])
  // with p = softmax of the row. No ignore_index.
  void cross_entropy(const Tensor& logits, const Tensor& labels, const Tensor* class_weights,
                     float smoothing, float scale, Tensor& loss, int64_t slot, Tensor& dlogits);
  // out[slot] = sum of x^2 (in double where the backend can): gradient norms, and the
  // overflow check of dynamic loss scaling (a non-finite gradient makes it non-finite). An empty
  // x writes 0 (do_sum_squares is called for it too). Deterministic order of summation.
  void sum_squares(const Tensor& x, Tensor& out, int64_t slot);
  // One AdamW step (op_types.h) on param in place, with its moments m and v (same element
  // counts, four distinct tensors). step >= 1, lr, eps, weight_decay >= 0, betas in [0, 1).
  void adamw(Tensor& param, const Tensor& grad, Tensor& m, Tensor& v, const AdamWStep& s);

  // --- training: one flat buffer for many tensors (a fused optimizer's) --------------------
  // A zero-filled f32 tensor holding one range per shape of `shapes`, each starting at a multiple
  // of part_alignment() elements, and in `parts` one tensor per shape over its range (a view:
  // writing a part writes the flat tensor). One op over the flat tensor then covers every part
  // (AdamW over all parameters in one pass); the padding between parts stays zero under AdamW
  // when it is zero in the parameters, gradients and moments. Parts are distinct from each other
  // and from every other tensor; the flat tensor must not meet one of its own parts in one op
  // (the fronts cannot see that overlap).
  Tensor flat_parts(std::span<const std::vector<int64_t>> shapes, std::vector<Tensor>& parts);

 protected:
  // gemm_batched's checks (they throw); false when there is nothing to compute.
  bool check_gemm_batched(const GemmBatch& g, const Tensor& a, const Tensor& b, const Tensor& c);
  // The shape key of an autotuned gemm_batched call (op_types.h) as text, e.g.
  // "m=5 n=7 k=6 ta=0 tb=1 beta=1 items=2 lda=8 ldb=7 ldc=10 strided=1".
  static std::string gemm_autotune_key(const GemmBatch& g);
  // True when `offsets` is an arithmetic progression with a step >= 0 (0 or 1 items: step 0).
  static bool evenly_strided(const std::vector<int64_t>& offsets, int64_t* step);
  // Another backend's flat_parts hooks, for backends that wrap one (tests' recording backend).
  static int64_t part_alignment_of(const CoreOps& b) { return b.part_alignment(); }
  static Tensor part_of(CoreOps& b, const Tensor& flat, int64_t offset,
                        std::vector<int64_t> shape) {
    return b.do_part(flat, offset, std::move(shape));
  }

  // What each backend implements, called by the fronts above with validated arguments (and,
  // for ops that write, at least one element to write): op_list.h's SB_CORE_OPS, and these,
  // which are not on the list (a default, or flat_parts' two hooks).
  SB_CORE_OPS(SB_DECLARE_PURE_VIRTUAL)
  // flat_parts: where parts may start (elements), and a view of `shape` at `offset` of `flat`.
  virtual int64_t part_alignment() const { return 16; }
  virtual Tensor do_part(const Tensor& flat, int64_t offset, std::vector<int64_t> shape) = 0;
  // Default: im2col into `columns` (never null here), then linear. Defined here, as is
  // conv1d_gathers_columns, so that the op layer has no key function: its type info is emitted
  // wherever it is used, which the fuzz targets (UBSan's vptr checks, no op layer linked) need.
  virtual void do_conv1d(const Tensor& x, int k, const Weight& w, Tensor& y, const Epilogue& ep,
                         const InputTransform& t, Tensor* columns) {
    im2col(x, k, *columns, t);
    linear(*columns, w, y, ep);
  }
  // linear_backward's arguments checked, its products as gemm_batched calls (dx_g null: no dx).
  virtual void do_linear_backward(const GemmBatch& dw_g, const GemmBatch* dx_g, const Tensor& x,
                                  const Tensor& dy, const Tensor& w, Tensor& dw, Tensor& db,
                                  Tensor* dx) {
    do_gemm_batched(dw_g, dy, x, dw);
    Tensor sums = db.reshaped({1, dw_g.m});
    do_sum_axis1(dy.reshaped({1, dw_g.k, dw_g.m}), nullptr, sums);
    if (dx_g != nullptr) do_gemm_batched(*dx_g, dy, w, *dx);
  }
};

}  // namespace sb
