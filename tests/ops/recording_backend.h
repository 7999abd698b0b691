#pragma once
// A backend that runs every op on another one through its fronts and records which ops reached
// a do_<op> (validated, with something to write): the coverage test checks with it that each
// case really runs the op it claims to cover.
#include <set>

#include "models/ops/backend.h"

namespace sb::testing {

class RecordingBackend final : public Backend {
 public:
  explicit RecordingBackend(Backend& inner) : in_(inner) {}
  const std::set<Op>& reached() const { return reached_; }
  void clear() { reached_.clear(); }

  std::string name() const override { return in_.name(); }
  std::string device() const override { return in_.device(); }
  BackendMemory memory() override { return in_.memory(); }
  KernelLog* kernel_log() override { return in_.kernel_log(); }
  std::string unsupported_reason(Precision p) const override { return in_.unsupported_reason(p); }
  void synchronize() override { in_.synchronize(); }

 private:
  // Records op, then runs f.
  template <class F>
  auto at(Op op, F&& f) {
    reached_.insert(op);
    return f();
  }

  Tensor do_empty(std::vector<int64_t> shape, DType dtype) override {
    return at(Op::empty, [&] { return in_.empty(std::move(shape), dtype); });
  }
  int64_t part_alignment() const override { return part_alignment_of(in_); }
  Tensor do_part(const Tensor& flat, int64_t offset, std::vector<int64_t> shape) override {
    return at(Op::flat_parts, [&] { return part_of(in_, flat, offset, std::move(shape)); });
  }
  Tensor do_upload(std::span<const float> host, std::vector<int64_t> shape) override {
    return at(Op::upload, [&] { return in_.upload(host, std::move(shape)); });
  }
  Tensor do_upload_ids(std::span<const int32_t> host, std::vector<int64_t> shape) override {
    return at(Op::upload_ids, [&] { return in_.upload_ids(host, std::move(shape)); });
  }
  std::vector<float> do_download(const Tensor& t) override {
    return at(Op::download, [&] { return in_.download(t); });
  }
  Weight do_prepare_weight(std::span<const float> w, int64_t n, int64_t k, Precision p) override {
    return at(Op::prepare_weight, [&] { return in_.prepare_weight(w, n, k, p); });
  }
  void do_linear(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep) override {
    at(Op::linear, [&] { in_.linear(x, w, y, ep); });
  }
  void do_gemm_batched(const GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c) override {
    at(Op::gemm_batched, [&] { in_.gemm_batched(g, a, b, c); });
  }
  void do_im2col(const Tensor& x, int k, Tensor& cols, const InputTransform& t) override {
    at(Op::im2col, [&] { in_.im2col(x, k, cols, t); });
  }
  bool conv1d_gathers_columns(int k, const Weight& w, int64_t channels) const override {
    return in_.conv1d_gathers_columns(k, w, channels);
  }
  void do_conv1d(const Tensor& x, int k, const Weight& w, Tensor& y, const Epilogue& ep,
                 const InputTransform& t, Tensor* columns) override {
    at(Op::conv1d, [&] { in_.conv1d(x, k, w, y, ep, t, columns); });
  }
  void do_copy_rows(const Tensor& x, int64_t start, Tensor& y) override {
    at(Op::copy_rows, [&] { in_.copy_rows(x, start, y); });
  }
  void do_embedding(const Tensor& table, const Tensor& ids, const Tensor* rows,
                    Tensor& y) override {
    at(Op::embedding, [&] { in_.embedding(table, ids, rows, y); });
  }
  void do_affine_channels(const Tensor& x, const Tensor* scale, const Tensor* shift,
                          Tensor& y) override {
    at(Op::affine_channels, [&] { in_.affine_channels(x, scale, shift, y); });
  }
  void do_sigmoid_scaled(const Tensor& x, float alpha, Tensor& y) override {
    at(Op::sigmoid_scaled, [&] { in_.sigmoid_scaled(x, alpha, y); });
  }
  void do_mul(const Tensor& a, const Tensor& b, Tensor& y) override {
    at(Op::mul, [&] { in_.mul(a, b, y); });
  }
  void do_add(const Tensor& a, const Tensor& b, Tensor& y) override {
    at(Op::add, [&] { in_.add(a, b, y); });
  }
  void do_activation(const Tensor& x, Act act, Tensor& y) override {
    at(Op::activation, [&] { in_.activation(x, act, y); });
  }
  void do_layernorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps,
                    Tensor& y) override {
    at(Op::layernorm, [&] { in_.layernorm(x, gamma, beta, eps, y); });
  }
  void do_add_layernorm(const Tensor& x, const Tensor& residual, const Tensor& gamma,
                        const Tensor& beta, float eps, Tensor& y) override {
    at(Op::add_layernorm, [&] { in_.add_layernorm(x, residual, gamma, beta, eps, y); });
  }
  void do_normalize_rows(const Tensor& x, const Tensor& mean, const Tensor& var,
                         const Tensor& gamma, const Tensor& beta, float eps, Tensor& y) override {
    at(Op::normalize_rows, [&] { in_.normalize_rows(x, mean, var, gamma, beta, eps, y); });
  }
  void do_softmax_rows(Tensor& x) override {
    at(Op::softmax_rows, [&] { in_.softmax_rows(x); });
  }
  void do_softmax_axis1(const Tensor& x, Tensor& y) override {
    at(Op::softmax_axis1, [&] { in_.softmax_axis1(x, y); });
  }
  void do_row_moments(const Tensor& x, Tensor& mean, Tensor& var) override {
    at(Op::row_moments, [&] { in_.row_moments(x, mean, var); });
  }
  void do_sum_axis1(const Tensor& x, const Tensor* weights, Tensor& y) override {
    at(Op::sum_axis1, [&] { in_.sum_axis1(x, weights, y); });
  }
  void do_masked_mean(const Tensor& x, const Tensor& weights, Tensor& y) override {
    at(Op::masked_mean, [&] { in_.masked_mean(x, weights, y); });
  }
  void do_add_key_bias(Tensor& logits, const Tensor& key_bias, int64_t heads) override {
    at(Op::add_key_bias, [&] { in_.add_key_bias(logits, key_bias, heads); });
  }
  void do_rel_shift_add(Tensor& logits, const Tensor& rel) override {
    at(Op::rel_shift_add, [&] { in_.rel_shift_add(logits, rel); });
  }
  void do_attention_fused(const AttentionShape& s, const Tensor& q, const Tensor& k,
                          const Tensor& v, const Tensor* key_bias, Tensor& out) override {
    at(Op::attention_fused, [&] { in_.attention_fused(s, q, k, v, key_bias, out); });
  }
  void do_rel_attention_fused(const RelAttentionShape& s, const Tensor& q, const Tensor& k,
                              const Tensor& v, const Tensor& rel_k, const Tensor& content_bias,
                              const Tensor& pos_bias, Tensor& out) override {
    at(Op::rel_attention_fused,
       [&] { in_.rel_attention_fused(s, q, k, v, rel_k, content_bias, pos_bias, out); });
  }
  void do_attention_pool(const Tensor& x, const Tensor& logits, Tensor& y) override {
    at(Op::attention_pool, [&] { in_.attention_pool(x, logits, y); });
  }
  void do_write(std::span<const float> host, Tensor& t, bool blocking) override {
    at(Op::write, [&] { in_.write(host, t, blocking); });
  }
  void do_write_ids(std::span<const int32_t> host, Tensor& t, bool blocking) override {
    at(Op::write_ids, [&] { in_.write_ids(host, t, blocking); });
  }
  void do_fill(Tensor& y, float value) override {
    at(Op::fill, [&] { in_.fill(y, value); });
  }
  void do_concat_last(std::span<const Tensor* const> xs, Tensor& y) override {
    at(Op::concat_last, [&] { in_.concat_last(xs, y); });
  }
  void do_slice_last(const Tensor& x, int64_t start, Tensor& y) override {
    at(Op::slice_last, [&] { in_.slice_last(x, start, y); });
  }
  void do_gather_cols(const Tensor& x, std::span<const int64_t> index, Tensor& y) override {
    at(Op::gather_cols, [&] { in_.gather_cols(x, index, y); });
  }
  void do_scatter_add_cols(const Tensor& y, std::span<const int64_t> index, Tensor& x) override {
    at(Op::scatter_add_cols, [&] { in_.scatter_add_cols(y, index, x); });
  }
  void do_embedding_backward(const Tensor& dy, const Tensor& ids, Tensor& dtable) override {
    at(Op::embedding_backward, [&] { in_.embedding_backward(dy, ids, dtable); });
  }
  void do_activation_backward(const Tensor& x, const Tensor& dy, Act act, Tensor& dx) override {
    at(Op::activation_backward, [&] { in_.activation_backward(x, dy, act, dx); });
  }
  void do_layernorm_backward(const Tensor& x, const Tensor& gamma, float eps, const Tensor& dy,
                             Tensor& dx, Tensor& dgamma, Tensor& dbeta) override {
    at(Op::layernorm_backward,
       [&] { in_.layernorm_backward(x, gamma, eps, dy, dx, dgamma, dbeta); });
  }
  void do_conv3d(const Conv3dShape& s, const Tensor& x, const Tensor& w, const Tensor* bias,
                 Tensor& y) override {
    at(Op::conv3d, [&] { in_.conv3d(s, x, w, bias, y); });
  }
  void do_conv3d_backward_data(const Conv3dShape& s, const Tensor& dy, const Tensor& w,
                               Tensor& dx) override {
    at(Op::conv3d_backward_data, [&] { in_.conv3d_backward_data(s, dy, w, dx); });
  }
  void do_conv3d_backward_weights(const Conv3dShape& s, const Tensor& x, const Tensor& dy,
                                  Tensor& dw, Tensor* dbias) override {
    at(Op::conv3d_backward_weights, [&] { in_.conv3d_backward_weights(s, x, dy, dw, dbias); });
  }
  void do_softmax_rows_backward(const Tensor& y, const Tensor& dy, Tensor& dx) override {
    at(Op::softmax_rows_backward, [&] { in_.softmax_rows_backward(y, dy, dx); });
  }
  void do_dropout(const Tensor& x, const DropoutKey& key, Tensor& y) override {
    at(Op::dropout, [&] { in_.dropout(x, key, y); });
  }
  void do_bce_with_logits(const Tensor& logits, const Tensor& targets, float scale, Tensor& loss,
                          int64_t slot, Tensor& dlogits) override {
    at(Op::bce_with_logits,
       [&] { in_.bce_with_logits(logits, targets, scale, loss, slot, dlogits); });
  }
  void do_cross_entropy(const Tensor& logits, const Tensor& labels, const Tensor* class_weights,
                        float smoothing, float scale, Tensor& loss, int64_t slot,
                        Tensor& dlogits) override {
    at(Op::cross_entropy, [&] {
      in_.cross_entropy(logits, labels, class_weights, smoothing, scale, loss, slot, dlogits);
    });
  }
  void do_sum_squares(const Tensor& x, Tensor& out, int64_t slot) override {
    at(Op::sum_squares, [&] { in_.sum_squares(x, out, slot); });
  }
  void do_adamw(Tensor& param, const Tensor& grad, Tensor& m, Tensor& v,
                const AdamWStep& s) override {
    at(Op::adamw, [&] { in_.adamw(param, grad, m, v, s); });
  }
  void do_instance_norm(const Tensor& x, Layout3d layout, int64_t batch, int64_t channels,
                        const Tensor& gamma, const Tensor& beta, float eps, Tensor& y,
                        const NormEpilogue& ep) override {
    at(Op::instance_norm,
       [&] { in_.instance_norm(x, layout, batch, channels, gamma, beta, eps, y, ep); });
  }
  void do_instance_norm_backward(const Tensor& x, Layout3d layout, int64_t batch, int64_t channels,
                                 const Tensor& gamma, float eps, const Tensor& dy, Tensor& dx,
                                 Tensor& dgamma, Tensor& dbeta) override {
    at(Op::instance_norm_backward, [&] {
      in_.instance_norm_backward(x, layout, batch, channels, gamma, eps, dy, dx, dgamma, dbeta);
    });
  }
  void do_concat_axis1(std::span<const Tensor* const> xs, int64_t outer, int64_t inner,
                       Tensor& y) override {
    at(Op::concat_axis1, [&] { in_.concat_axis1(xs, outer, inner, y); });
  }
  void do_slice_axis1(const Tensor& x, int64_t outer, int64_t inner, int64_t start,
                      Tensor& y) override {
    at(Op::slice_axis1, [&] { in_.slice_axis1(x, outer, inner, start, y); });
  }
  void do_soft_dice_loss(const Tensor& logits, const Tensor& targets, Layout3d layout,
                         int64_t batch, int64_t channels, float smooth, float scale, Tensor& loss,
                         int64_t slot, Tensor& dlogits) override {
    at(Op::soft_dice_loss, [&] {
      in_.soft_dice_loss(logits, targets, layout, batch, channels, smooth, scale, loss, slot,
                         dlogits);
    });
  }
  void do_conv_transpose3d(const Conv3dShape& s, const Tensor& x, const Tensor& w,
                           const Tensor* bias, Tensor& y) override {
    at(Op::conv_transpose3d, [&] { in_.conv_transpose3d(s, x, w, bias, y); });
  }
  void do_conv_transpose3d_backward_data(const Conv3dShape& s, const Tensor& dy, const Tensor& w,
                                         Tensor& dx) override {
    at(Op::conv_transpose3d_backward_data,
       [&] { in_.conv_transpose3d_backward_data(s, dy, w, dx); });
  }
  void do_conv_transpose3d_backward_weights(const Conv3dShape& s, const Tensor& x, const Tensor& dy,
                                            Tensor& dw, Tensor* dbias) override {
    at(Op::conv_transpose3d_backward_weights,
       [&] { in_.conv_transpose3d_backward_weights(s, x, dy, dw, dbias); });
  }

  Backend& in_;
  std::set<Op> reached_;
};

}  // namespace sb::testing
