#pragma once
// The CPU backend's class. Its ops live in one file per concern, named as on the OpenCL backend:
// cpu_backend.cpp (memory), linear.cpp (precisions and weights), gemm_eigen.cpp and gemm_dnnl.cpp
// (behind DnnlGemm), data_movement.cpp, elementwise.cpp, norms.cpp, reductions.cpp,
// attention.cpp (logit biases), attention_masked.cpp, attention_relative.cpp, attention_pool.cpp;
// the training ops: cpu_backend.cpp (write, fill), columns.cpp, backward.cpp, dropout.cpp,
// losses.cpp, optimizer.cpp.
// The fronts (models/ops/backend.cpp) have validated every argument before a do_ runs.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/ops/backend.h"

namespace sb::cpu {

class DnnlGemm;

class CpuBackend final : public Backend {
 public:
  CpuBackend();
  ~CpuBackend() override;

  std::string name() const override { return "cpu"; }
  std::string device() const override { return device_; }
  BackendMemory memory() override { return {host_.get(), nullptr}; }
  std::string unsupported_reason(Precision p) const override;
  void synchronize() override {}
  Tensor do_part(const Tensor& flat, int64_t offset, std::vector<int64_t> shape) override;
  std::vector<std::pair<std::string, std::string>> autotune_choices() const override;

 private:
  Tensor do_empty(std::vector<int64_t> shape, DType dtype) override;
  Tensor do_upload(std::span<const float> host, std::vector<int64_t> shape) override;
  Tensor do_upload_ids(std::span<const int32_t> host, std::vector<int64_t> shape) override;
  std::vector<float> do_download(const Tensor& t) override;

  Weight do_prepare_weight(std::span<const float> w, int64_t n, int64_t k, Precision p) override;
  void do_linear(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep) override;
  void do_gemm_batched(const GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c) override;

  void do_im2col(const Tensor& x, int k, Tensor& cols, const InputTransform& t) override;
  void do_copy_rows(const Tensor& x, int64_t start, Tensor& y) override;
  void do_embedding(const Tensor& table, const Tensor& ids, const Tensor* rows, Tensor& y) override;

  void do_affine_channels(const Tensor& x, const Tensor* scale, const Tensor* shift,
                          Tensor& y) override;
  void do_sigmoid_scaled(const Tensor& x, float alpha, Tensor& y) override;
  void do_mul(const Tensor& a, const Tensor& b, Tensor& y) override;
  void do_add(const Tensor& a, const Tensor& b, Tensor& y) override;
  void do_activation(const Tensor& x, Act act, Tensor& y) override;

  void do_layernorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps,
                    Tensor& y) override;
  void do_add_layernorm(const Tensor& x, const Tensor& residual, const Tensor& gamma,
                        const Tensor& beta, float eps, Tensor& y) override;
  void do_normalize_rows(const Tensor& x, const Tensor& mean, const Tensor& var,
                         const Tensor& gamma, const Tensor& beta, float eps, Tensor& y) override;
  void do_softmax_rows(Tensor& x) override;
  void do_softmax_axis1(const Tensor& x, Tensor& y) override;

  void do_row_moments(const Tensor& x, Tensor& mean, Tensor& var) override;
  void do_sum_axis1(const Tensor& x, const Tensor* weights, Tensor& y) override;
  void do_masked_mean(const Tensor& x, const Tensor& weights, Tensor& y) override;

  void do_add_key_bias(Tensor& logits, const Tensor& key_bias, int64_t heads) override;
  void do_rel_shift_add(Tensor& logits, const Tensor& rel) override;
  void do_attention_fused(const AttentionShape& s, const Tensor& q, const Tensor& k,
                          const Tensor& v, const Tensor* key_bias, Tensor& out) override;
  void do_rel_attention_fused(const RelAttentionShape& s, const Tensor& q, const Tensor& k,
                              const Tensor& v, const Tensor& rel_k, const Tensor& content_bias,
                              const Tensor& pos_bias, Tensor& out) override;

  void do_attention_pool(const Tensor& x, const Tensor& logits, Tensor& y) override;

  void do_write(std::span<const float> host, Tensor& t, bool blocking) override;
  void do_write_ids(std::span<const int32_t> host, Tensor& t, bool blocking) override;
  void do_fill(Tensor& y, float value) override;

  void do_concat_last(std::span<const Tensor* const> xs, Tensor& y) override;
  void do_slice_last(const Tensor& x, int64_t start, Tensor& y) override;
  void do_gather_cols(const Tensor& x, std::span<const int64_t> index, Tensor& y) override;
  void do_scatter_add_cols(const Tensor& y, std::span<const int64_t> index, Tensor& x) override;

  void do_embedding_backward(const Tensor& dy, const Tensor& ids, Tensor& dtable) override;
  void do_activation_backward(const Tensor& x, const Tensor& dy, Act act, Tensor& dx) override;
  void do_layernorm_backward(const Tensor& x, const Tensor& gamma, float eps, const Tensor& dy,
                             Tensor& dx, Tensor& dgamma, Tensor& dbeta) override;
  void do_softmax_rows_backward(const Tensor& y, const Tensor& dy, Tensor& dx) override;
  void do_dropout(const Tensor& x, const DropoutKey& key, Tensor& y) override;

  void do_bce_with_logits(const Tensor& logits, const Tensor& targets, float scale, Tensor& loss,
                          int64_t slot, Tensor& dlogits) override;
  void do_cross_entropy(const Tensor& logits, const Tensor& labels, const Tensor* class_weights,
                        float smoothing, float scale, Tensor& loss, int64_t slot,
                        Tensor& dlogits) override;
  void do_sum_squares(const Tensor& x, Tensor& out, int64_t slot) override;
  void do_adamw(Tensor& param, const Tensor& grad, Tensor& m, Tensor& v,
                const AdamWStep& s) override;

  // conv3d.cpp: oneDNN convolution primitives cached per shape (loops without oneDNN).
  void do_conv3d(const Conv3dShape& s, const Tensor& x, const Tensor& w, const Tensor* bias,
                 Tensor& y) override;
  void do_conv3d_backward_data(const Conv3dShape& s, const Tensor& dy, const Tensor& w,
                               Tensor& dx) override;
  void do_conv3d_backward_weights(const Conv3dShape& s, const Tensor& x, const Tensor& dy,
                                  Tensor& dw, Tensor* dbias) override;
  struct Conv3dPrimitives;
  Conv3dPrimitives& conv3d_primitives();
  std::shared_ptr<Conv3dPrimitives> conv3d_;  // created on first use (oneDNN builds only)

  // 3-D volumes (volume.cpp): instance norm, axis-1 concat/slice, soft Dice.
  void do_instance_norm(const Tensor& x, Layout3d layout, int64_t batch, int64_t channels,
                        const Tensor& gamma, const Tensor& beta, float eps, Tensor& y,
                        const NormEpilogue& ep) override;
  void do_instance_norm_backward(const Tensor& x, Layout3d layout, int64_t batch,
                                 int64_t channels, const Tensor& gamma, float eps,
                                 const Tensor& dy, Tensor& dx, Tensor& dgamma,
                                 Tensor& dbeta) override;
  void do_concat_axis1(std::span<const Tensor* const> xs, int64_t outer, int64_t inner,
                       Tensor& y) override;
  void do_slice_axis1(const Tensor& x, int64_t outer, int64_t inner, int64_t start,
                      Tensor& y) override;
  void do_soft_dice_loss(const Tensor& logits, const Tensor& targets, Layout3d layout,
                         int64_t batch, int64_t channels, float smooth, float scale, Tensor& loss,
                         int64_t slot, Tensor& dlogits) override;

  // conv_transpose3d.cpp: oneDNN deconvolution primitives (loops without oneDNN).
  void do_conv_transpose3d(const Conv3dShape& s, const Tensor& x, const Tensor& w,
                           const Tensor* bias, Tensor& y) override;
  void do_conv_transpose3d_backward_data(const Conv3dShape& s, const Tensor& dy, const Tensor& w,
                                         Tensor& dx) override;
  void do_conv_transpose3d_backward_weights(const Conv3dShape& s, const Tensor& x,
                                            const Tensor& dy, Tensor& dw, Tensor* dbias) override;

  void linear_f32(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep);

  // gemm_batched's f32 kernels (gemm_eigen.cpp): Eigen threaded across the items (one thread
  // per item, Eigen single-threaded inside) or inside each item's GEMM (items in turn), and
  // oneDNN's f32 matmul (with oneDNN only). Untuned calls take Eigen by default_batched_kernel().
  enum class BatchedKernel : uint8_t { eigen_across_items, eigen_inside_gemm, onednn_matmul };
  static const char* batched_kernel_name(BatchedKernel k);
  BatchedKernel default_batched_kernel(const GemmBatch& g) const;
  void gemm_batched_f32(BatchedKernel kernel, const GemmBatch& g, const float* a, const float* b,
                        float* c);
  // Times every candidate on a scratch copy of C (c itself is not written) and returns the
  // median-fastest.
  BatchedKernel tune_gemm_batched(const GemmBatch& g, const float* a, const float* b,
                                  const Tensor& c);

  std::shared_ptr<AllocationTracker> host_;
  std::string device_;
  std::unique_ptr<DnnlGemm> dnnl_;                  // null when built without oneDNN
  std::map<std::string, BatchedKernel> autotuned_;  // gemm_batched autotune: shape key -> kernel
};

}  // namespace sb::cpu
