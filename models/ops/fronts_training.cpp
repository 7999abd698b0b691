// The fronts of the training ops (core_ops.h, "training"): transfers into existing tensors, the
// column ops, the backward ops, dropout, the losses, sum_squares and AdamW; each validated here,
// once for every backend, then the backend's do_<op>.
#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "models/ops/core_ops.h"
#include "models/ops/op_checks.h"

namespace sb {

using namespace checks;

// --- training: transfers into existing tensors --------------------------------------------

void CoreOps::write(std::span<const float> host, Tensor& t, bool blocking) {
  const Op op = Op::write;
  expect_f32(op, "tensor", t);
  if (static_cast<int64_t>(host.size()) != t.numel())
    fail(op, text(static_cast<int64_t>(host.size())) + " values for " + describe("tensor", t));
  if (t.numel() == 0) return;
  do_write(host, t, blocking);
}

void CoreOps::write_ids(std::span<const int32_t> host, Tensor& t, bool blocking) {
  const Op op = Op::write_ids;
  expect_dtype(op, "ids", t, DType::i32);
  if (static_cast<int64_t>(host.size()) != t.numel())
    fail(op, text(static_cast<int64_t>(host.size())) + " ids for " + describe("ids", t));
  if (t.numel() == 0) return;
  do_write_ids(host, t, blocking);
  t.storage()->ids = id_range(host);
}

void CoreOps::fill(Tensor& y, float value) {
  expect_f32(Op::fill, "output", y);
  if (y.numel() == 0) return;
  do_fill(y, value);
}

// --- training: columns --------------------------------------------------------------------

void CoreOps::concat_last(std::span<const Tensor* const> xs, Tensor& y) {
  const Op op = Op::concat_last;
  if (xs.empty()) fail(op, "no inputs");
  expect_f32(op, "output", y);
  const int64_t width = expect_channels(op, "output", y), rows = leading_rows(y);
  int64_t total = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const std::string what = "input " + text(static_cast<int64_t>(i));
    if (xs[i] == nullptr) fail(op, what + " is null");
    expect_f32(op, what.c_str(), *xs[i]);
    total += expect_channels(op, what.c_str(), *xs[i]);
    if (leading_rows(*xs[i]) != rows)
      fail(op, describe(what.c_str(), *xs[i]) + " does not have the " + text(rows) + " rows of " +
                   describe("output", y));
    expect_distinct(op, "the output", y, what.c_str(), *xs[i]);
  }
  if (total != width)
    fail(op, describe("output", y) + " is not " + text(total) + " columns wide (the inputs' sum)");
  if (y.numel() == 0) return;
  do_concat_last(xs, y);
}

void CoreOps::slice_last(const Tensor& x, int64_t start, Tensor& y) {
  const Op op = Op::slice_last;
  expect_f32(op, "input", x);
  expect_f32(op, "output", y);
  const int64_t c = expect_channels(op, "input", x), k = expect_channels(op, "output", y);
  if (leading_rows(x) != leading_rows(y))
    fail(op, describe("output", y) + " does not have the rows of " + describe("input", x));
  if (start < 0 || start + k > c)
    fail(op, "columns [" + text(start) + ", " + text(start + k) + ") are outside " +
                 describe("input", x));
  expect_distinct(op, "the output", y, "the input", x);
  if (y.numel() == 0) return;
  do_slice_last(x, start, y);
}

namespace {

// x [R, C] and y [R, K = index.size()] with every index in [0, C); `narrow` names y.
void expect_columns(Op op, const Tensor& wide, const char* wide_what, const Tensor& narrow,
                    const char* narrow_what, std::span<const int64_t> index) {
  expect_f32(op, wide_what, wide);
  expect_f32(op, narrow_what, narrow);
  const int64_t c = expect_channels(op, wide_what, wide);
  const int64_t k = expect_channels(op, narrow_what, narrow);
  if (leading_rows(wide) != leading_rows(narrow))
    fail(op,
         describe(narrow_what, narrow) + " does not have the rows of " + describe(wide_what, wide));
  if (k != static_cast<int64_t>(index.size()))
    fail(op, describe(narrow_what, narrow) + " is not " + text(static_cast<int64_t>(index.size())) +
                 " columns wide (one per index)");
  for (size_t j = 0; j < index.size(); ++j)
    if (index[j] < 0 || index[j] >= c)
      fail(op, "index " + text(index[j]) + " at position " + text(static_cast<int64_t>(j)) +
                   " is outside the " + text(c) + " columns of " + describe(wide_what, wide));
}

}  // namespace

void CoreOps::gather_cols(const Tensor& x, std::span<const int64_t> index, Tensor& y) {
  const Op op = Op::gather_cols;
  expect_columns(op, x, "input", y, "output", index);
  expect_distinct(op, "the output", y, "the input", x);
  if (y.numel() == 0) return;
  do_gather_cols(x, index, y);
}

void CoreOps::scatter_add_cols(const Tensor& y, std::span<const int64_t> index, Tensor& x) {
  const Op op = Op::scatter_add_cols;
  expect_columns(op, x, "output", y, "input", index);
  expect_distinct(op, "the output", x, "the input", y);
  if (y.numel() == 0) return;
  do_scatter_add_cols(y, index, x);
}

// --- training: backward of the forward ops ------------------------------------------------

void CoreOps::embedding_backward(const Tensor& dy, const Tensor& ids, Tensor& dtable) {
  const Op op = Op::embedding_backward;
  expect_f32_rank(op, "dtable", dtable, 2, "[V, D]");
  expect_dtype(op, "ids", ids, DType::i32);
  if (ids.rank() != 2) fail(op, describe("ids", ids) + " is not [B, S]");
  const int64_t vocab = dtable.dim(0), dim = dtable.dim(1), seq = ids.dim(1);
  const int64_t tokens = ids.numel();
  expect_f32(op, "dy", dy);
  if (dy.numel() != tokens * dim || dy.rank() < 1 || dy.dim(-1) != dim)
    fail(op, describe("dy", dy) + " is not [B, S, D] = [" + text(ids.dim(0)) + ", " + text(seq) +
                 ", " + text(dim) + "]");
  expect_distinct(op, "dtable", dtable, "dy", dy);
  if (tokens > 0) expect_ids_inside(op, ids, vocab, seq);
  if (dy.numel() == 0) return;
  do_embedding_backward(dy, ids, dtable);
}

void CoreOps::activation_backward(const Tensor& x, const Tensor& dy, Act act, Tensor& dx) {
  const Op op = Op::activation_backward;
  expect_f32(op, "input", x);
  expect_f32_numel(op, "dy", dy, x.numel(), "the input's size");
  expect_f32_numel(op, "dx", dx, x.numel(), "the input's size");
  expect_act(op, act);
  expect_distinct(op, "dx", dx, "the input", x);
  if (dx.numel() == 0) return;
  do_activation_backward(x, dy, act, dx);
}

void CoreOps::layernorm_backward(const Tensor& x, const Tensor& gamma, float eps, const Tensor& dy,
                                 Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
  const Op op = Op::layernorm_backward;
  expect_f32(op, "input", x);
  const int64_t channels = expect_channels(op, "input", x);
  expect_f32_numel(op, "gamma", gamma, channels, "[C]");
  expect_f32_numel(op, "dy", dy, x.numel(), "the input's size");
  expect_f32_numel(op, "dx", dx, x.numel(), "the input's size");
  expect_f32_numel(op, "dgamma", dgamma, channels, "[C]");
  expect_f32_numel(op, "dbeta", dbeta, channels, "[C]");
  expect_eps(op, eps);
  const Named inputs[] = {{"the input", &x}, {"gamma", &gamma}};
  for (const auto& [what, in] : inputs) expect_distinct(op, "dx", dx, what, *in);
  const Named others[] = {{"the input", &x}, {"gamma", &gamma}, {"dy", &dy}, {"dx", &dx}};
  for (const auto& [what, in] : others) {
    expect_distinct(op, "dgamma", dgamma, what, *in);
    expect_distinct(op, "dbeta", dbeta, what, *in);
  }
  expect_distinct(op, "dbeta", dbeta, "dgamma", dgamma);
  if (channels == 0) return;
  if (x.numel() == 0) {  // no rows: the parameters' gradients are empty sums
    fill(dgamma, 0.0f);
    fill(dbeta, 0.0f);
    return;
  }
  do_layernorm_backward(x, gamma, eps, dy, dx, dgamma, dbeta);
}

void CoreOps::softmax_rows_backward(const Tensor& y, const Tensor& dy, Tensor& dx) {
  const Op op = Op::softmax_rows_backward;
  expect_f32(op, "y", y);
  expect_channels(op, "y", y);
  expect_f32_numel(op, "dy", dy, y.numel(), "y's size");
  expect_f32_numel(op, "dx", dx, y.numel(), "y's size");
  expect_distinct(op, "dx", dx, "y", y);
  if (dx.numel() == 0) return;
  do_softmax_rows_backward(y, dy, dx);
}

void CoreOps::dropout(const Tensor& x, const DropoutKey& key, Tensor& y) {
  const Op op = Op::dropout;
  expect_f32(op, "input", x);
  expect_f32_numel(op, "output", y, x.numel(), "the input's size");
  if (!(key.p >= 0.0f && key.p < 1.0f))
    fail(op, "p = " + std::to_string(key.p) + " is outside [0, 1)");
  if (y.numel() == 0) return;
  do_dropout(x, key, y);
}

void CoreOps::activation_dropout(const Tensor& x, Act act, const DropoutKey& key, Tensor& y) {
  const Op op = Op::activation_dropout;
  expect_f32(op, "input", x);
  expect_f32_numel(op, "output", y, x.numel(), "the input's size");
  expect_act(op, act);
  if (!(key.p >= 0.0f && key.p < 1.0f))
    fail(op, "p = " + std::to_string(key.p) + " is outside [0, 1)");
  if (y.numel() == 0) return;
  do_activation_dropout(x, act, key, y);
}

void CoreOps::dropout_activation_backward(const Tensor& x, const Tensor& dy, Act act,
                                          const DropoutKey& key, Tensor& dx) {
  const Op op = Op::dropout_activation_backward;
  expect_f32(op, "input", x);
  expect_f32_numel(op, "dy", dy, x.numel(), "the input's size");
  expect_f32_numel(op, "dx", dx, x.numel(), "the input's size");
  expect_act(op, act);
  expect_distinct(op, "dx", dx, "the input", x);
  if (!(key.p >= 0.0f && key.p < 1.0f))
    fail(op, "p = " + std::to_string(key.p) + " is outside [0, 1)");
  if (dx.numel() == 0) return;
  do_dropout_activation_backward(x, dy, act, key, dx);
}

// --- training: losses ----------------------------------------------------------------------

namespace {

// loss[slot] inside the loss tensor, which is none of the others.
void expect_loss_slot(Op op, const Tensor& loss, int64_t slot,
                      std::initializer_list<Named> others) {
  expect_f32(op, "loss", loss);
  if (slot < 0 || slot >= loss.numel())
    fail(op, "slot " + text(slot) + " is outside " + describe("loss", loss));
  for (const auto& [what, t] : others) expect_distinct(op, "loss", loss, what, *t);
}

}  // namespace

void CoreOps::bce_with_logits(const Tensor& logits, const Tensor& targets, float scale,
                              Tensor& loss, int64_t slot, Tensor& dlogits) {
  const Op op = Op::bce_with_logits;
  expect_f32(op, "logits", logits);
  expect_f32_numel(op, "targets", targets, logits.numel(), "the logits' size");
  expect_f32_numel(op, "dlogits", dlogits, logits.numel(), "the logits' size");
  expect_distinct(op, "dlogits", dlogits, "the logits", logits);
  expect_distinct(op, "dlogits", dlogits, "the targets", targets);
  expect_loss_slot(op, loss, slot,
                   {{"the logits", &logits}, {"the targets", &targets}, {"dlogits", &dlogits}});
  if (logits.numel() == 0) fail(op, describe("logits", logits) + " are empty: no mean");
  do_bce_with_logits(logits, targets, scale, loss, slot, dlogits);
}

void CoreOps::cross_entropy(const Tensor& logits, const Tensor& labels, const Tensor* class_weights,
                            float smoothing, float scale, Tensor& loss, int64_t slot,
                            Tensor& dlogits) {
  const Op op = Op::cross_entropy;
  expect_f32_rank(op, "logits", logits, 2, "[R, C]");
  const int64_t rows = logits.dim(0), classes = logits.dim(1);
  expect_dtype(op, "labels", labels, DType::i32);
  if (labels.numel() != rows)
    fail(op, describe("labels", labels) + " is not [R] = [" + text(rows) + "]");
  if (class_weights != nullptr) {
    expect_f32_numel(op, "class_weights", *class_weights, classes, "[C]");
    expect_distinct(op, "dlogits", dlogits, "the class weights", *class_weights);
  }
  if (!(smoothing >= 0.0f && smoothing < 1.0f))
    fail(op, "smoothing = " + std::to_string(smoothing) + " is outside [0, 1)");
  expect_f32_numel(op, "dlogits", dlogits, logits.numel(), "the logits' size");
  expect_distinct(op, "dlogits", dlogits, "the logits", logits);
  expect_loss_slot(op, loss, slot, {{"the logits", &logits}, {"dlogits", &dlogits}});
  if (class_weights != nullptr)
    expect_distinct(op, "loss", loss, "the class weights", *class_weights);
  if (rows == 0 || classes == 0) fail(op, describe("logits", logits) + " are empty: no mean");
  const IdRange& r = recorded_ids(op, "labels", labels);
  if (r.lo < 0 || r.hi >= classes) {
    const bool low = r.lo < 0;
    fail(op, "label " + text(low ? r.lo : r.hi) + " at row " + text(low ? r.lo_at : r.hi_at) +
                 " is outside the " + text(classes) + " classes");
  }
  do_cross_entropy(logits, labels, class_weights, smoothing, scale, loss, slot, dlogits);
}

void CoreOps::sum_squares(const Tensor& x, Tensor& out, int64_t slot) {
  const Op op = Op::sum_squares;
  expect_f32(op, "input", x);
  expect_f32(op, "out", out);
  if (slot < 0 || slot >= out.numel())
    fail(op, "slot " + text(slot) + " is outside " + describe("out", out));
  expect_distinct(op, "out", out, "the input", x);
  do_sum_squares(x, out, slot);
}

void CoreOps::adamw(Tensor& param, const Tensor& grad, Tensor& m, Tensor& v, const AdamWStep& s) {
  const Op op = Op::adamw;
  expect_f32(op, "param", param);
  expect_f32_numel(op, "grad", grad, param.numel(), "param's size");
  expect_f32_numel(op, "m", m, param.numel(), "param's size");
  expect_f32_numel(op, "v", v, param.numel(), "param's size");
  const Named all[] = {{"param", &param}, {"grad", &grad}, {"m", &m}, {"v", &v}};
  for (size_t i = 0; i < 4; ++i)
    for (size_t j = i + 1; j < 4; ++j)
      expect_distinct(op, all[j].first, *all[j].second, all[i].first, *all[i].second);
  if (s.step < 1) fail(op, "step " + text(s.step) + " must be >= 1");
  if (!(s.lr >= 0.0f)) fail(op, "lr = " + std::to_string(s.lr) + " must be >= 0");
  if (!(s.beta1 >= 0.0f && s.beta1 < 1.0f) || !(s.beta2 >= 0.0f && s.beta2 < 1.0f))
    fail(op, "betas (" + std::to_string(s.beta1) + ", " + std::to_string(s.beta2) +
                 ") must be in [0, 1)");
  if (!(s.eps >= 0.0f)) fail(op, "eps = " + std::to_string(s.eps) + " must be >= 0");
  if (!(s.weight_decay >= 0.0f))
    fail(op, "weight_decay = " + std::to_string(s.weight_decay) + " must be >= 0");
  if (param.numel() == 0) return;
  do_adamw(param, grad, m, v, s);
}

Tensor CoreOps::flat_parts(std::span<const std::vector<int64_t>> shapes,
                           std::vector<Tensor>& parts) {
  const int64_t align = std::max<int64_t>(1, part_alignment());
  std::vector<int64_t> offsets;
  int64_t total = 0;
  for (const auto& shape : shapes) {
    int64_t n = 1;
    for (int64_t d : shape) {
      if (d < 0) throw std::invalid_argument("flat_parts: negative dimension in a part's shape");
      n *= d;
    }
    offsets.push_back(total);
    total += (n + align - 1) / align * align;
  }
  Tensor flat = empty({total});
  fill(flat, 0.f);
  parts.clear();
  for (size_t i = 0; i < shapes.size(); ++i) parts.push_back(do_part(flat, offsets[i], shapes[i]));
  return flat;
}

}  // namespace sb
