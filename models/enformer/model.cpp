#include "models/enformer/model.h"

#include <algorithm>
#include <cmath>

#include "models/enformer/positional.h"

namespace sb::enformer {
namespace {

constexpr float kNormEps = 1e-5f;

// Conv1d weight (cout, cin, k) -> GEMM weight (cout, k * cin) matching im2col's columns.
std::vector<float> conv_to_gemm(const HostTensor& w) {
  const int64_t cout = w.shape[0], cin = w.shape[1], k = w.shape[2];
  std::vector<float> g(w.values.size());
  for (int64_t o = 0; o < cout; ++o)
    for (int64_t c = 0; c < cin; ++c)
      for (int64_t j = 0; j < k; ++j) g[(o * k + j) * cin + c] = w.values[(o * cin + c) * k + j];
  return g;
}

std::string at(const std::string& site, int i) {
  return site + "." + std::to_string(i);
}

}  // namespace

Model::Model(const Config& config, const Params& params, Backend& backend, const Switches& sw)
    : c_(config), be_(backend), sw_(sw), params_(params) {
  const auto f = c_.filters();
  const Precision p = sw_.precision;
  if (sw_.stem_taps16) {  // columns 0..3 (tap 0, one position further left) stay zero
    const std::vector<float> g = conv_to_gemm(params.at("stem.0.weight"));
    std::vector<float> g16(f[0] * 16 * 4, 0.f);
    for (int64_t o = 0; o < f[0]; ++o)
      std::copy_n(g.begin() + o * 15 * 4, 15 * 4, g16.begin() + o * 16 * 4 + 4);
    stem_w_ = be_.prepare_weight(g16, f[0], 16 * 4, p);
  } else {
    stem_w_ = be_.prepare_weight(conv_to_gemm(params.at("stem.0.weight")), f[0], 15 * 4, p);
  }
  stem_b_ = vec("stem.0.bias");
  stem_pointwise_ = conv_block("stem.1.fn.0", "stem.1.fn.2", f[0], f[0], 1);
  stem_pool_ = weight("stem.2.to_attn_logits.weight", f[0], f[0], p);
  for (int64_t i = 0; i < c_.tower_blocks(); ++i) {
    const std::string t = "conv_tower." + std::to_string(i);
    Tower tw;
    tw.conv = conv_block(t + ".0.0", t + ".0.2", f[i], f[i + 1], 5);
    tw.pointwise = conv_block(t + ".1.fn.0", t + ".1.fn.2", f[i + 1], f[i + 1], 1);
    tw.pool = weight(t + ".2.to_attn_logits.weight", f[i + 1], f[i + 1], p);
    tower_.push_back(std::move(tw));
  }
  const int64_t hk = c_.heads * c_.dk;
  const float scale = 1.f / std::sqrt(static_cast<float>(c_.dk));
  for (int l = 0; l < c_.depth; ++l) {
    const std::string t = "transformer." + std::to_string(l);
    const std::string a = t + ".0.fn.1";
    Layer y;
    y.ln1_g = vec(t + ".0.fn.0.weight");
    y.ln1_b = vec(t + ".0.fn.0.bias");
    if (sw_.graph_compile) {  // constant folding: q * dk^-1/2 becomes part of Wq
      std::vector<float> wq = params.at(a + ".to_q.weight").values;
      for (float& v : wq) v *= scale;
      y.q = be_.prepare_weight(wq, hk, c_.dim, p);
    } else {
      y.q = weight(a + ".to_q.weight", hk, c_.dim, p);
    }
    y.k = weight(a + ".to_k.weight", hk, c_.dim, p);
    y.v = weight(a + ".to_v.weight", c_.dim, c_.dim, p);
    y.out = weight(a + ".to_out.weight", c_.dim, c_.dim, p);
    y.out_b = vec(a + ".to_out.bias");
    // rel_k acts on positional features that carry no data: it stays fp32 in every stage,
    // except that the half-activation stage computes it once, at set-up, as an f16 product
    // written in f16 (the attention reads it so; before, it was converted at every call).
    y.rel_k = weight(a + ".to_rel_k.weight", hk, c_.rel_features(),
                     sw_.half_activations ? Precision::f16 : Precision::f32);
    y.content_bias = vec(a + ".rel_content_bias");
    y.pos_bias = vec(a + ".rel_pos_bias");
    y.ln2_g = vec(t + ".1.fn.0.weight");
    y.ln2_b = vec(t + ".1.fn.0.bias");
    y.ff1 = weight(t + ".1.fn.1.weight", 2 * c_.dim, c_.dim, p);
    y.ff1_b = vec(t + ".1.fn.1.bias");
    y.ff2 = weight(t + ".1.fn.4.weight", c_.dim, 2 * c_.dim, p);
    y.ff2_b = vec(t + ".1.fn.4.bias");
    layers_.push_back(std::move(y));
  }
  if (!sw_.graph_compile) q_scale_ = be_.upload(std::vector<float>(hk, scale), {hk});
  final_ = conv_block("final_pointwise.1.0", "final_pointwise.1.2", c_.dim, 2 * c_.dim, 1);
  human_w_ = weight("_heads.human.0.weight", c_.human_out, 2 * c_.dim, p);
  human_b_ = vec("_heads.human.0.bias");
  mouse_w_ = weight("_heads.mouse.0.weight", c_.mouse_out, 2 * c_.dim, p);
  mouse_b_ = vec("_heads.mouse.0.bias");
  if (sw_.graph_compile) {
    const Tensor features = positions();
    for (int l = 0; l < c_.depth; ++l)
      layers_[l].rel_k_cached = rel_k(layers_[l], features, at("relk", l));
  }
}

Weight Model::weight(const std::string& name, int64_t n, int64_t k, Precision p) {
  return be_.prepare_weight(params_.at(name).values, n, k, p);
}

Tensor Model::vec(const std::string& name) {
  const auto& t = params_.at(name);
  return be_.upload(t.values, {static_cast<int64_t>(t.values.size())});
}

Model::BatchNorm Model::batch_norm(const std::string& prefix) {
  const auto& g = params_.at(prefix + ".weight").values;
  const auto& b = params_.at(prefix + ".bias").values;
  const auto& m = params_.at(prefix + ".running_mean").values;
  const auto& v = params_.at(prefix + ".running_var").values;
  std::vector<float> scale(g.size()), shift(g.size());
  for (size_t i = 0; i < g.size(); ++i) {
    scale[i] = g[i] / std::sqrt(v[i] + kNormEps);
    shift[i] = b[i] - m[i] * scale[i];
  }
  const int64_t c = static_cast<int64_t>(g.size());
  return {be_.upload(scale, {c}), be_.upload(shift, {c})};
}

Model::ConvBlock Model::conv_block(const std::string& bn, const std::string& conv, int64_t cin,
                                   int64_t cout, int k) {
  ConvBlock b;
  b.bn = batch_norm(bn);
  b.w =
      be_.prepare_weight(conv_to_gemm(params_.at(conv + ".weight")), cout, k * cin, sw_.precision);
  b.bias = vec(conv + ".bias");
  b.k = k;
  return b;
}

Tensor Model::buffer(const std::string& site, std::vector<int64_t> shape, DType dtype) {
  if (!sw_.graph_compile) return be_.empty(std::move(shape), dtype);
  Tensor& t = plan_[dtype == DType::f32 ? site : site + "." + dtype_name(dtype)];
  if (!t.defined() || t.shape() != shape) t = be_.empty(std::move(shape), dtype);
  return t;
}

DType Model::act() const {
  return sw_.half_activations ? DType::f16 : DType::f32;
}

Tensor Model::gelu(const Tensor& x, const std::string& site) {
  Tensor y = buffer(site + ".gelu", x.shape());
  if (sw_.fused_gelu) {
    be_.activation(x, Act::gelu, y);
  } else {  // the eager framework's two passes: sigmoid(1.702 x), then the product with x
    Tensor s = buffer(site + ".sigmoid", x.shape());
    be_.sigmoid_scaled(x, 1.702f, s);
    be_.mul(s, x, y);
  }
  return y;
}

void Model::conv(const Tensor& x, int k, const Weight& w, Tensor& y, const Epilogue& ep,
                 const InputTransform& t, const std::string& site) {
  Tensor cols;
  if (be_.conv1d_gathers_columns(k, w, x.dim(2)))
    cols = buffer(site + ".cols", {x.dim(0) * x.dim(1), k * x.dim(2)});
  be_.conv1d(x, k, w, y, ep, t, cols.defined() ? &cols : nullptr);
}

Tensor Model::run_conv_block(const Tensor& x, const ConvBlock& b, const Tensor* residual,
                             const std::string& site, DType out, bool applied) {
  const int64_t bsz = x.dim(0), len = x.dim(1), cout = b.w.n;
  Tensor y = buffer(site + ".out", {bsz, len, cout}, sw_.graph_compile ? out : DType::f32);
  if (sw_.graph_compile) {  // BN + GELU gathered into the conv input, residual in the epilogue
    const InputTransform t =
        applied ? InputTransform{} : InputTransform{&b.bn.scale, &b.bn.shift, Act::gelu};
    conv(x, b.k, b.w, y, {&b.bias, Act::none, residual}, t, site);
    return y;
  }
  Tensor n = buffer(site + ".bn", x.shape());
  be_.affine_channels(x, &b.bn.scale, &b.bn.shift, n);
  Tensor g = gelu(n, site);
  if (b.k > 1) {
    conv(g, b.k, b.w, y, {&b.bias}, {}, site);
  } else {
    be_.linear(g, b.w, y, {&b.bias});
  }
  if (!residual) return y;
  Tensor r = buffer(site + ".residual", y.shape());
  be_.add(*residual, y, r);
  return r;
}

Tensor Model::run_pool(const Tensor& x, const Weight& w, const std::string& site, DType out,
                       const ConvBlock* next) {
  Tensor logits = buffer(site + ".logits", x.shape());
  be_.linear(x, w, logits);
  const int64_t bsz = x.dim(0), pairs = x.dim(1) / 2, c = x.dim(2);
  Tensor y = buffer(site + ".out", {bsz, pairs, c}, sw_.graph_compile ? out : DType::f32);
  if (sw_.graph_compile) {  // one pass: the pair weights never leave registers
    be_.attention_pool(
        x, logits, y,
        next ? InputTransform{&next->bn.scale, &next->bn.shift, Act::gelu} : InputTransform{});
    return y;
  }
  // Eager, as AttentionPool: the softmax over each pair of positions is a tensor of its own,
  // read back by the weighted sum.
  const std::vector<int64_t> by_pair{bsz * pairs, 2, c};
  Tensor weights = buffer(site + ".weights", by_pair);
  be_.softmax_axis1(logits.reshaped(by_pair), weights);
  Tensor pooled = y.reshaped({bsz * pairs, c});
  be_.sum_axis1(x.reshaped(by_pair), &weights, pooled);
  return y;
}

Tensor Model::layer_norm(const Tensor& x, const Tensor& g, const Tensor& b,
                         const std::string& site) {
  // Welford's statistics stay fp32 in registers; only the normalized row may be written f16.
  Tensor y = buffer(site, x.shape(), sw_.fused_layernorm ? act() : DType::f32);
  if (sw_.fused_layernorm) {  // one Welford pass per row
    be_.layernorm(x, g, b, kNormEps, y);
    return y;
  }
  // Eager: each row statistic is a pass of its own, materialized (the means, then the variances
  // of the centred values), then the normalization.
  const int64_t rows = x.numel() / x.dim(-1);
  Tensor mean = buffer(site + ".mean", {rows});
  Tensor var = buffer(site + ".var", {rows});
  be_.row_moments(x, mean, var);
  be_.normalize_rows(x, mean, var, g, b, kNormEps, y);
  return y;
}

Tensor Model::positions() {
  const int64_t n = c_.tokens(), r = c_.rel_features();
  return be_.upload(positional_features(n, r), {2 * n - 1, r});
}

Tensor Model::rel_k(const Layer& l, const Tensor& features, const std::string& site) {
  Tensor k = buffer(site, {features.dim(0), c_.heads * c_.dk}, act());
  be_.linear(features, l.rel_k, k);
  return k;
}

Tensor Model::attention(const Tensor& x, const Layer& l, const std::string& site) {
  const int64_t bsz = x.dim(0), n = x.dim(1), h = c_.heads, dk = c_.dk, dv = c_.dv();
  // Q stays fp32: the attention adds the content and positional biases to it in fp32.
  Tensor q = buffer(site + ".q", {bsz, n, h * dk});
  Tensor k = buffer(site + ".k", {bsz, n, h * dk}, act());
  Tensor v = buffer(site + ".v", {bsz, n, h * dv}, act());
  be_.linear(x, l.q, q);
  be_.linear(x, l.k, k);
  be_.linear(x, l.v, v);
  if (!sw_.graph_compile) be_.affine_channels(q, &q_scale_, nullptr, q);
  Tensor relk = sw_.graph_compile ? l.rel_k_cached : rel_k(l, features_, site + ".relk");
  Tensor out = buffer(site + ".ctx", {bsz, n, h * dv}, act());
  if (sw_.fused_attention) {
    be_.rel_attention_fused({bsz, n, h, dk, dv, sw_.attention}, q, k, v, relk, l.content_bias,
                            l.pos_bias, out);
    return out;
  }
  Tensor qc = buffer(site + ".qc", q.shape());
  Tensor qp = buffer(site + ".qp", q.shape());
  be_.affine_channels(q, nullptr, &l.content_bias, qc);
  be_.affine_channels(q, nullptr, &l.pos_bias, qp);
  Tensor logits = buffer(site + ".logits", {bsz * h, n, n});
  Tensor rel = buffer(site + ".rel", {bsz * h, n, 2 * n - 1});
  GemmBatch content{n, n, dk, true, 1.f, h * dk, h * dk, n, {}, {}, {}};
  GemmBatch positional{n, 2 * n - 1, dk, true, 1.f, h * dk, h * dk, 2 * n - 1, {}, {}, {}};
  GemmBatch mix{n, dv, n, false, 1.f, n, h * dv, h * dv, {}, {}, {}};
  for (int64_t b = 0; b < bsz; ++b) {
    for (int64_t hh = 0; hh < h; ++hh) {
      const int64_t item = b * h + hh;
      content.a_offsets.push_back(b * n * h * dk + hh * dk);
      content.b_offsets.push_back(b * n * h * dk + hh * dk);
      content.c_offsets.push_back(item * n * n);
      positional.a_offsets.push_back(b * n * h * dk + hh * dk);
      positional.b_offsets.push_back(hh * dk);
      positional.c_offsets.push_back(item * n * (2 * n - 1));
      mix.a_offsets.push_back(item * n * n);
      mix.b_offsets.push_back(b * n * h * dv + hh * dv);
      mix.c_offsets.push_back(b * n * h * dv + hh * dv);
    }
  }
  be_.gemm_batched(content, qc, k, logits);
  be_.gemm_batched(positional, qp, relk, rel);
  be_.rel_shift_add(logits, rel);
  be_.softmax_rows(logits);
  be_.gemm_batched(mix, logits, v, out);
  return out;
}

Tensor Model::transformer_layer(const Tensor& x, const Layer& l, const std::string& site) {
  Tensor h1 = layer_norm(x, l.ln1_g, l.ln1_b, site + ".ln1");
  Tensor ctx = attention(h1, l, site + ".attn");
  Tensor x2 = buffer(site + ".x2", x.shape());
  if (sw_.graph_compile) {
    be_.linear(ctx, l.out, x2, {&l.out_b, Act::none, &x});
  } else {
    Tensor o = buffer(site + ".proj", x.shape());
    be_.linear(ctx, l.out, o, {&l.out_b});
    be_.add(x, o, x2);
  }
  Tensor h2 = layer_norm(x2, l.ln2_g, l.ln2_b, site + ".ln2");
  // The residual stream (x, x2, x3) stays fp32: each layer adds to it twice.
  Tensor f1 = buffer(site + ".ff1", {x.dim(0), x.dim(1), 2 * c_.dim}, act());
  Tensor x3 = buffer(site + ".x3", x.shape());
  if (sw_.graph_compile) {
    be_.linear(h2, l.ff1, f1, {&l.ff1_b, Act::relu});
    be_.linear(f1, l.ff2, x3, {&l.ff2_b, Act::none, &x2});
  } else {
    be_.linear(h2, l.ff1, f1, {&l.ff1_b});
    Tensor r = buffer(site + ".relu", f1.shape());
    be_.activation(f1, Act::relu, r);
    Tensor f2 = buffer(site + ".ff2", x.shape());
    be_.linear(r, l.ff2, f2, {&l.ff2_b});
    be_.add(x2, f2, x3);
  }
  return x3;
}

Tensor Model::head(const Tensor& x, const Weight& w, const Tensor& b, const std::string& site) {
  Tensor y = buffer(site, {x.dim(0), x.dim(1), w.n});
  if (sw_.graph_compile) {
    be_.linear(x, w, y, {&b, Act::softplus});
    return y;
  }
  be_.linear(x, w, y, {&b});
  be_.activation(y, Act::softplus, y);
  return y;
}

Outputs Model::forward(const Tensor& input) {
  const int64_t bsz = input.dim(0), len = input.dim(1);
  // Stem: the first conv sees the raw one-hot input (no BN, no GELU) in every stage.
  Tensor x = buffer("stem.conv", {bsz, len, stem_w_.n});
  if (sw_.stem_taps16) {
    Tensor cols = buffer("stem.cols16", {bsz * len, 16 * input.dim(2)});
    be_.im2col(input, 16, cols, {});
    be_.linear(cols, stem_w_, x, {&stem_b_});
  } else {
    conv(input, 15, stem_w_, x, {&stem_b_}, {}, "stem");
  }
  // In the half-activation stage the pointwise blocks' sums are f16 (their pool's logits GEMM,
  // an f16 product, and the pooling read them), and so are the pools' outputs that only the next
  // conv block's input pass (BN + GELU, to f16) reads; the last pool's output starts the
  // transformer's fp32 residual stream, and the conv outputs stay fp32 (the pointwise blocks'
  // residuals).
  // With pool_transform each pool before a tower block applies that block's BN + GELU.
  const int blocks = static_cast<int>(tower_.size());
  const bool fold = sw_.graph_compile && sw_.pool_transform;
  x = run_conv_block(x, stem_pointwise_, &x, "stem.pw", act());
  x = run_pool(x, stem_pool_, "stem.pool", act(), fold && blocks > 0 ? &tower_[0].conv : nullptr);
  for (int i = 0; i < blocks; ++i) {
    const std::string t = at("tower", i);
    x = run_conv_block(x, tower_[i].conv, nullptr, t + ".conv", DType::f32, fold);
    x = run_conv_block(x, tower_[i].pointwise, &x, t + ".pw", act());
    const bool last = i + 1 == blocks;
    x = run_pool(x, tower_[i].pool, t + ".pool", last ? DType::f32 : act(),
                 fold && !last ? &tower_[i + 1].conv : nullptr);
  }
  // Eager: the positional features are recomputed on every call (once per forward, shared by
  // the layers: a little kinder to the baseline than the reference's once per layer).
  if (!sw_.graph_compile) features_ = positions();
  for (int l = 0; l < c_.depth; ++l) x = transformer_layer(x, layers_[l], at("layer", l));
  const int64_t n = x.dim(1);
  Tensor crop = buffer("crop", {bsz, c_.target, c_.dim});
  be_.copy_rows(x, (n - c_.target) / 2, crop);

  Outputs out;
  if (sw_.graph_compile) {  // BN+GELU into the conv input, the trailing GELU in its epilogue
    out.embeddings = buffer("final.out", {bsz, c_.target, 2 * c_.dim});
    conv(crop, 1, final_.w, out.embeddings, {&final_.bias, Act::gelu},
         {&final_.bn.scale, &final_.bn.shift, Act::gelu}, "final.in");
  } else if (sw_.fused_gelu) {  // the trailing GELU fused into its producer's epilogue
    Tensor nrm = buffer("final.bn", crop.shape());
    be_.affine_channels(crop, &final_.bn.scale, &final_.bn.shift, nrm);
    Tensor g = gelu(nrm, "final");
    out.embeddings = buffer("final.out", {bsz, c_.target, 2 * c_.dim});
    be_.linear(g, final_.w, out.embeddings, {&final_.bias, Act::gelu});
  } else {
    Tensor y = run_conv_block(crop, final_, nullptr, "final");
    out.embeddings = gelu(y, "final.post");
  }
  out.human = head(out.embeddings, human_w_, human_b_, "head.human");
  out.mouse = head(out.embeddings, mouse_w_, mouse_b_, "head.mouse");
  return out;
}

}  // namespace sb::enformer
