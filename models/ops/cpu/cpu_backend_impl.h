#pragma once
// The CPU backend's class. Its methods live in one file per concern: cpu_backend.cpp (memory,
// precisions), gemm_eigen.cpp, im2col.cpp, elementwise.cpp, norms.cpp, attention.cpp, bert.cpp
// (BERT's gathers and reductions), attention_masked.cpp; the bf16/int8 GEMMs in gemm_dnnl.cpp
// behind DnnlGemm.
#include <memory>
#include <string>

#include "models/ops/backend.h"

namespace sb::cpu {

class DnnlGemm;

class CpuBackend final : public Backend {
 public:
  CpuBackend();
  ~CpuBackend() override;

  std::string name() const override { return "cpu"; }
  std::string device() const override { return device_; }

  Tensor empty(std::vector<int64_t> shape, DType dtype = DType::f32) override;
  Tensor upload(std::span<const float> host, std::vector<int64_t> shape) override;
  std::vector<float> download(const Tensor& t) override;
  Tensor upload_ids(std::span<const int32_t> host, std::vector<int64_t> shape) override;
  void synchronize() override {}
  BackendMemory memory() override { return {host_.get(), nullptr}; }

  std::string unsupported_reason(Precision p) const override;
  Weight prepare_weight(std::span<const float> w, int64_t n, int64_t k, Precision p) override;
  void linear(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep = {}) override;
  void gemm_batched(const GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c) override;

  void im2col(const Tensor& x, int k, Tensor& cols, const InputTransform& t = {}) override;
  void copy_rows(const Tensor& x, int64_t start, Tensor& y) override;

  void affine_channels(const Tensor& x, const Tensor* scale, const Tensor* shift,
                       Tensor& y) override;
  void sigmoid_scaled(const Tensor& x, float alpha, Tensor& y) override;
  void mul(const Tensor& a, const Tensor& b, Tensor& y) override;
  void add(const Tensor& a, const Tensor& b, Tensor& y) override;
  void activation(const Tensor& x, Act act, Tensor& y) override;

  void layernorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps, Tensor& y,
                 bool one_pass) override;
  void softmax_rows(Tensor& x) override;

  void embedding(const Tensor& table, const Tensor& ids, const Tensor* rows, Tensor& y) override;
  void add_key_bias(Tensor& logits, const Tensor& key_bias, int64_t heads) override;
  void add_layernorm(const Tensor& x, const Tensor& residual, const Tensor& gamma,
                     const Tensor& beta, float eps, Tensor& y) override;
  void masked_mean(const Tensor& x, const Tensor& weights, Tensor& y) override;
  void attention_fused(const AttentionShape& s, const Tensor& q, const Tensor& k, const Tensor& v,
                       const Tensor* key_bias, Tensor& out) override;

  void attention_pool(const Tensor& x, const Tensor& logits, Tensor& y, bool one_pass) override;
  void rel_shift_add(Tensor& logits, const Tensor& rel) override;
  void rel_attention_fused(const RelAttentionShape& s, const Tensor& q, const Tensor& k,
                           const Tensor& v, const Tensor& rel_k, const Tensor& content_bias,
                           const Tensor& pos_bias, Tensor& out) override;

 private:
  void linear_f32(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep);

  std::shared_ptr<AllocationTracker> host_;
  std::string device_;
  std::unique_ptr<DnnlGemm> dnnl_;  // null when built without oneDNN
};

// Shape checks shared by the op files; they throw std::invalid_argument naming the op.
void expect_numel(const Tensor& t, int64_t numel, const char* op, const char* what);
void expect_rank(const Tensor& t, int rank, const char* op, const char* what);

}  // namespace sb::cpu
