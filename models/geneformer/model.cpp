#include "models/geneformer/model.h"

#include <cmath>
#include <stdexcept>

namespace sb::geneformer {
namespace {

std::string at(const std::string& site, int64_t i) {
  return site + "." + std::to_string(i);
}

}  // namespace

Model::Model(const Config& config, const Params& params, Backend& backend, const Switches& sw,
             const InputRanges* ranges)
    : c_(config), be_(backend), sw_(sw), params_(params) {
  if (sw_.calibrated && !ranges)
    throw std::invalid_argument("geneformer: a calibrated int8 model needs calibration ranges");
  const GraphPasses& gp = sw_.passes;
  word_ = vec("embeddings.word_embeddings.weight");
  emb_g_ = vec("embeddings.LayerNorm.weight");
  emb_b_ = vec("embeddings.LayerNorm.bias");
  const int64_t d = c_.hidden;
  if (gp.fold_constants) {  // positions 0..S-1 and token type 0 never change: one table
    const auto& pos = params.at("embeddings.position_embeddings.weight").values;
    const auto& type = params.at("embeddings.token_type_embeddings.weight").values;
    std::vector<float> table(static_cast<size_t>(c_.max_positions * d));
    for (size_t i = 0; i < table.size(); ++i) table[i] = pos[i] + type[i % d];
    pos_type_ = be_.upload(table, {c_.max_positions, d});
  } else {
    pos_ = vec("embeddings.position_embeddings.weight");
    type_ = vec("embeddings.token_type_embeddings.weight");
  }
  const float scale = 1.f / std::sqrt(static_cast<float>(c_.head_dim()));
  const InputRanges* r = sw_.calibrated ? ranges : nullptr;
  for (int64_t l = 0; l < c_.layers; ++l) {
    const std::string p = layer_prefix(l), a = p + "attention.", site = at("layer", l);
    Layer y;
    // Folding the score scale into Wq and bq: (s x Wq + s bq) . k = s (q . k).
    const float qs = gp.fold_constants ? scale : 1.f;
    if (gp.merge_qkv) {
      y.qkv =
          linear_params(site + ".qkv", {a + "self.query", a + "self.key", a + "self.value"}, qs, r);
    } else {
      y.q = linear_params(site + ".q", {a + "self.query"}, qs, r);
      y.k = linear_params(site + ".k", {a + "self.key"}, 1.f, r);
      y.v = linear_params(site + ".v", {a + "self.value"}, 1.f, r);
    }
    y.out = linear_params(site + ".out", {a + "output.dense"}, 1.f, r);
    y.ln1_g = vec(a + "output.LayerNorm.weight");
    y.ln1_b = vec(a + "output.LayerNorm.bias");
    y.inter = linear_params(site + ".intermediate", {p + "intermediate.dense"}, 1.f, r);
    y.output = linear_params(site + ".output", {p + "output.dense"}, 1.f, r);
    y.ln2_g = vec(p + "output.LayerNorm.weight");
    y.ln2_b = vec(p + "output.LayerNorm.bias");
    layers_.push_back(std::move(y));
  }
}

Model::Linear Model::linear_params(const std::string& site, const std::vector<std::string>& names,
                                   float scale, const InputRanges* ranges) {
  // Several names stack their rows: the merged QKV weight is [3D, D].
  std::vector<float> w, b;
  int64_t n = 0, k = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const HostTensor& wt = params_.at(names[i] + ".weight");
    const HostTensor& bt = params_.at(names[i] + ".bias");
    const float s = i == 0 ? scale : 1.f;  // only the query part carries the folded scale
    for (float v : wt.values) w.push_back(v * s);
    for (float v : bt.values) b.push_back(v * s);
    n += wt.shape[0];
    k = wt.shape[1];
  }
  Linear l;
  l.site = site;
  l.w = be_.prepare_weight(w, n, k, sw_.precision);
  l.bias = be_.upload(b, {n});
  if (ranges) {
    auto it = ranges->find(site);
    if (it == ranges->end())
      throw std::invalid_argument("geneformer: no calibration range for '" + site + "'");
    l.w.input_lo = it->second.first;
    l.w.input_hi = it->second.second;
  }
  return l;
}

Tensor Model::vec(const std::string& name) {
  const HostTensor& t = params_.at(name);
  return be_.upload(t.values, t.shape);
}

Tensor Model::buffer(const std::string& site, std::vector<int64_t> shape, DType dtype) {
  int64_t count = 1;
  for (int64_t v : shape) count *= v;
  requested_bytes_ += static_cast<uint64_t>(count) * dtype_size(dtype);
  if (!sw_.passes.plan_memory) return be_.empty(std::move(shape), dtype);
  Tensor& t = plan_[dtype == DType::f32 ? site : site + "." + dtype_name(dtype)];
  if (!t.defined() || t.numel() < count) t = be_.empty(shape, dtype);
  return t.numel() == count ? t.reshaped(std::move(shape)) : be_.empty(std::move(shape), dtype);
}

uint64_t Model::planned_bytes() const {
  uint64_t n = 0;
  for (const auto& [site, t] : plan_) n += t.bytes();
  return n;
}

void Model::linear(const Tensor& x, const Linear& l, Tensor& y, Act act) {
  if (observer_) observer_(l.site, x);
  be_.linear(x, l.w, y, {&l.bias, act, nullptr});
}

Tensor Model::embed(const DeviceCells& cells) {
  const int64_t bsz = cells.ids.dim(0), s = cells.ids.dim(1), d = c_.hidden;
  if (s > c_.max_positions)
    throw std::invalid_argument("geneformer: " + std::to_string(s) + " tokens exceed the " +
                                std::to_string(c_.max_positions) + " positions");
  if (sw_.passes.fold_constants) {  // one gather with the folded position+type rows added
    Tensor h = buffer(keep_all_ ? "hidden.0" : "hidden", {bsz, s, d}, act_);
    Tensor e = buffer("embedding", {bsz, s, d});
    be_.embedding(word_, cells.ids, &pos_type_, e);
    be_.layernorm(e, emb_g_, emb_b_, c_.eps, h);
    return h;
  }
  // Eager, as BertEmbeddings: three lookups (word, token type 0, positions 0..S-1), two adds.
  const std::string key = std::to_string(bsz) + "x" + std::to_string(s);
  Tensor& pos_ids = position_ids_[key];
  Tensor& type_ids = position_ids_["type" + key];
  if (!pos_ids.defined()) {
    std::vector<int32_t> p(static_cast<size_t>(bsz * s)), t(p.size(), 0);
    for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<int32_t>(i % s);
    pos_ids = be_.upload_ids(p, {bsz, s});
    type_ids = be_.upload_ids(t, {bsz, s});
  }
  Tensor h = buffer(keep_all_ ? "hidden.0" : "hidden", {bsz, s, d});
  Tensor w = buffer("emb.word", {bsz, s, d}), t = buffer("emb.type", {bsz, s, d});
  Tensor p = buffer("emb.pos", {bsz, s, d}), sum = buffer("emb.sum", {bsz, s, d});
  be_.embedding(word_, cells.ids, nullptr, w);
  be_.embedding(type_, type_ids, nullptr, t);
  be_.add(w, t, sum);
  be_.embedding(pos_, pos_ids, nullptr, p);
  be_.add(sum, p, sum);
  be_.layernorm(sum, emb_g_, emb_b_, c_.eps, h);
  return h;
}

Tensor Model::residual_layernorm(const Tensor& x, const Tensor& residual, const Tensor& g,
                                 const Tensor& b, const std::string& site, DType dtype) {
  Tensor y = buffer(site, x.shape(), dtype);
  if (sw_.passes.fuse_residual_layernorm) {
    be_.add_layernorm(x, residual, g, b, c_.eps, y);
    return y;
  }
  Tensor sum = buffer(site + ".sum", x.shape());
  be_.add(x, residual, sum);
  be_.layernorm(sum, g, b, c_.eps, y);  // PyTorch's layer_norm is one kernel
  return y;
}

Tensor Model::attention(const Tensor& x, const Layer& l, const DeviceCells& cells,
                        const std::string& site) {
  const int64_t bsz = x.dim(0), n = x.dim(1), d = c_.hidden, h = c_.heads, dh = c_.head_dim();
  Tensor q, k, v;
  int64_t ld = d, qc = 0, kc = 0, vc = 0;
  if (sw_.passes.merge_qkv) {
    q = k = v = buffer(site + ".qkv", {bsz, n, 3 * d}, act_);
    linear(x, l.qkv, q);
    ld = 3 * d, kc = d, vc = 2 * d;
  } else {
    q = buffer(site + ".q", {bsz, n, d});
    k = buffer(site + ".k", {bsz, n, d});
    v = buffer(site + ".v", {bsz, n, d});
    linear(x, l.q, q);
    linear(x, l.k, k);
    linear(x, l.v, v);
  }
  const float scale = sw_.passes.fold_constants ? 1.f : 1.f / std::sqrt(static_cast<float>(dh));
  Tensor ctx = buffer(site + ".context", {bsz, n, d}, sw_.fused_attention ? act_ : DType::f32);
  if (sw_.fused_attention) {
    AttentionShape s{bsz, n, h, dh, scale, ld, ld, ld, d, qc, kc, vc, sw_.attention};
    be_.attention_fused(s, q, k, v, &cells.key_bias, ctx);
    return ctx;
  }
  // Eager: scores = q k^T; scores / sqrt(dh) (unless folded); + mask; softmax; probs v.
  Tensor scores = buffer(site + ".scores", {bsz * h, n, n});
  GemmBatch qk{n, n, dh, true, 1.f, ld, ld, n, {}, {}, {}};
  GemmBatch pv{n, dh, n, false, 1.f, n, ld, d, {}, {}, {}};
  for (int64_t b = 0; b < bsz; ++b) {
    for (int64_t hh = 0; hh < h; ++hh) {
      const int64_t item = b * h + hh, row = b * n * ld + hh * dh;
      qk.a_offsets.push_back(row + qc);
      qk.b_offsets.push_back(row + kc);
      qk.c_offsets.push_back(item * n * n);
      pv.a_offsets.push_back(item * n * n);
      pv.b_offsets.push_back(row + vc);
      pv.c_offsets.push_back(b * n * d + hh * dh);
    }
  }
  be_.gemm_batched(qk, q, k, scores);
  if (!sw_.passes.fold_constants) {  // eager scales the scores in a pass of its own
    if (score_scale_.numel() != n)
      score_scale_ = be_.upload(std::vector<float>(static_cast<size_t>(n), scale), {n});
    be_.affine_channels(scores, &score_scale_, nullptr, scores);
  }
  be_.add_key_bias(scores, cells.key_bias, h);
  be_.softmax_rows(scores);
  be_.gemm_batched(pv, scores, v, ctx);
  return ctx;
}

Tensor Model::layer(const Tensor& x, const Layer& l, const DeviceCells& cells,
                    const std::string& site, int64_t index) {
  const int64_t bsz = x.dim(0), n = x.dim(1), d = c_.hidden;
  Tensor ctx = attention(x, l, cells, site + ".attention");
  Tensor proj = buffer(site + ".projection", {bsz, n, d}, act_);
  linear(ctx, l.out, proj);
  Tensor a = residual_layernorm(proj, x, l.ln1_g, l.ln1_b, site + ".attention_out", act_);
  Tensor inter = buffer(site + ".intermediate", {bsz, n, c_.intermediate}, act_);
  if (sw_.passes.fuse_bias_act) {
    linear(a, l.inter, inter, c_.activation);
  } else {
    linear(a, l.inter, inter);
    Tensor r = buffer(site + ".activation", inter.shape());
    be_.activation(inter, c_.activation, r);
    inter = r;
  }
  Tensor o = buffer(site + ".output", {bsz, n, d}, act_);
  linear(inter, l.output, o);
  // Unless every hidden state is kept, the layer writes its output over its input, dead by now.
  const std::string out = keep_all_ ? at("hidden", index + 1) : "hidden";
  // What the cell embedding averages, and the forward's last output, stay fp32.
  const bool f32_out = index + 1 == last_layer_ || index + 1 == c_.embedding_layer();
  return residual_layernorm(o, a, l.ln2_g, l.ln2_b, out, f32_out ? DType::f32 : act_);
}

Outputs Model::forward(const DeviceCells& cells, bool all_layers) {
  requested_bytes_ = 0;
  Outputs out;
  keep_all_ = all_layers || !sw_.passes.plan_memory;
  act_ = sw_.half_activations && !keep_all_ ? DType::f16 : DType::f32;
  const int64_t last = sw_.passes.eliminate_dead && !all_layers ? c_.embedding_layer() : c_.layers;
  last_layer_ = last;
  Tensor x = embed(cells);
  if (keep_all_) out.hidden.push_back(x);
  Tensor chosen;
  layers_run_ = 0;
  for (int64_t l = 0; l < last; ++l) {
    // Without a plan, sites are per layer; with one, every layer reuses the same buffers.
    const std::string site = sw_.passes.plan_memory ? std::string("layer") : at("layer", l);
    x = layer(x, layers_[l], cells, site, l);
    ++layers_run_;
    if (keep_all_) out.hidden.push_back(x);
    if (l + 1 == c_.embedding_layer()) {
      out.cell_embedding = buffer("cell_embedding", {x.dim(0), c_.hidden});
      be_.masked_mean(x, cells.weights, out.cell_embedding);
    }
  }
  return out;
}

}  // namespace sb::geneformer
