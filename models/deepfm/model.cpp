#include "models/deepfm/model.h"

#include <cmath>
#include <stdexcept>

namespace sb::deepfm {
namespace {

// The FM's pairs (i < j) in the reference's order, and their cells in a 4 x 4 Gram matrix.
constexpr std::array<std::array<int, 2>, kPairs> kPairFields{
    {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}};
constexpr std::array<int64_t, kPairs> kGramCells{1, 2, 3, 6, 7, 11};

// Dropout sites of one step (the mask's stream is step x 16 + site).
enum Site : int { kAttnProbs = 0, kAttnOut, kFfnAct, kFfnOut, kDeep0 };

// Dynamic loss scaling as torch.cuda.amp.GradScaler does it (docs/ladders.md).
constexpr double kInitialScale = 65536, kGrowth = 2, kBackoff = 0.5;
constexpr int64_t kGrowthInterval = 2000;

}  // namespace

std::array<int32_t, 4> table_offsets(const Cardinality& card) {
  std::array<int32_t, 4> off{};
  for (int f = 1; f < 4; ++f) off[f] = off[f - 1] + static_cast<int32_t>(card[f - 1]);
  return off;
}

Trainer::Trainer(Backend& be, const Config& c, const Params& init,
                 const std::vector<float>& type_weights, const Switches& sw, uint64_t seed)
    : be_(be),
      c_(c),
      sw_(sw),
      seed_(seed),
      init_(init),
      type_weights_host_(type_weights),
      batch_(c.batch),
      rows_(c.batch * 4) {
  const int64_t e = c.embed, ff = c.ff_width(), h = c.deep_out(), n = rows_, b = batch_;
  int64_t vocab = 0;
  for (int f = 0; f < 4; ++f) vocab += init.specs()[f].shape[0];
  // The parameters and their gradients are parts of flat buffers, made below.
  deep_.resize(static_cast<size_t>(c.layers));
  type_weights_ = be_.upload(type_weights_host_, {static_cast<int64_t>(type_weights.size())});

  // param_specs() order: tables (one concatenated tensor), encoder, deep, heads; log_vars
  // stay on the host.
  params_ = {&table_,  &qkv_.w,  &qkv_.b, &out_.w, &out_.b, &lin1_.w, &lin1_.b,
             &lin2_.w, &lin2_.b, &n1g_,   &n1b_,   &n2g_,   &n2b_};
  grads_ = {&dtable_,  &qkv_.dw,  &qkv_.db, &out_.dw, &out_.db, &lin1_.dw, &lin1_.db,
            &lin2_.dw, &lin2_.db, &dn1g_,   &dn1b_,   &dn2g_,   &dn2b_};
  for (auto& l : deep_) {
    params_.insert(params_.end(), {&l.w, &l.b});
    grads_.insert(grads_.end(), {&l.dw, &l.db});
  }
  for (auto& l : heads_) {
    params_.insert(params_.end(), {&l.w, &l.b});
    grads_.insert(grads_.end(), {&l.dw, &l.db});
  }
  // Parameters, gradients and moments each in one flat buffer, so that AdamW is one pass over
  // all of them and loss scaling's overflow check one reduction, as PyTorch's default AdamW and
  // GradScaler on CUDA do (foreach: many tensors a launch); per tensor, a step issued 47 commands
  // for them (results/h200/lead29-2026-11-28/README.md). The shapes are param_specs()'s, the four
  // tables as one, without log_vars (reset() writes them in the same order).
  std::vector<std::vector<int64_t>> shapes{{vocab, e}};
  for (size_t i = 4; i + 1 < init.specs().size(); ++i) shapes.push_back(init.specs()[i].shape);
  if (shapes.size() != params_.size())
    throw std::logic_error("deepfm: param_specs() and the trainer's parameters differ in count");
  std::vector<Tensor> parts;
  flat_p_ = be_.flat_parts(shapes, parts);
  for (size_t i = 0; i < parts.size(); ++i) *params_[i] = parts[i];
  flat_g_ = be_.flat_parts(shapes, parts);
  for (size_t i = 0; i < parts.size(); ++i) *grads_[i] = parts[i];
  flat_m_ = be_.flat_parts(shapes, m_);
  flat_v_ = be_.flat_parts(shapes, v_);

  s_ = be_.empty({b, 4, e});
  qkv_act_ = be_.empty({n, 3 * e});
  probs_ = be_.empty({b * c.heads * 4, 4});
  probs_drop_ = be_.empty({b * c.heads * 4, 4});
  attn_ = be_.empty({n, e});
  o_ = be_.empty({n, e});
  x1_ = be_.empty({n, e});
  h1_ = be_.empty({n, e});
  f_ = be_.empty({n, ff});
  a_ = be_.empty({n, ff});
  ad_ = be_.empty({n, ff});
  g_ = be_.empty({n, e});
  x2_ = be_.empty({n, e});
  t_ = be_.empty({b, 4 * e});
  for (int64_t l = 0; l < c.layers; ++l) {
    const int64_t w = c.deep_width(l);
    u_.push_back(be_.empty({b, w}));
    z_.push_back(be_.empty({b, w}));
    dz_.push_back(be_.empty({b, w}));
  }
  fm_ = be_.empty({b, kPairs});
  gram_ = be_.empty({b, 16});
  hcat_ = be_.empty({b, h + kPairs});
  for (int t = 0; t < kTasks; ++t) {
    logits_[t] = be_.empty({b, kTaskClasses[t]});
    dlogits_[t] = be_.empty({b, kTaskClasses[t]});
  }
  loss_ = be_.empty({kTasks + 1});  // the losses, and the gradients' norm where one_sync
  ds_ = be_.empty({b, 4, e});
  dqkv_ = be_.empty({n, 3 * e});
  dprobs_ = be_.empty({b * c.heads * 4, 4});
  dattn_ = be_.empty({n, e});
  do_ = be_.empty({n, e});
  dx_ = be_.empty({n, e});
  df_ = be_.empty({n, ff});
  dad_ = be_.empty({n, ff});
  dg_ = be_.empty({n, e});
  dt_ = be_.empty({b, 4 * e});
  dhcat_ = be_.empty({b, h + kPairs});
  dfm_ = be_.empty({b, kPairs});
  dgram_ = be_.empty({b, 16});
  norms_ = be_.empty({1});
  reset();
}

Trainer::~Trainer() {
  release_inputs();
  release_params();
}

void Trainer::release_params() {
  if (params_held_) be_.release_read_only(flat_p_);
  params_held_ = false;
}

void Trainer::notice_input(const Tensor& t) {
  if (sw_.precision == Precision::f16) be_.will_hold_read_only(t, Precision::f16);
}

// Held at f16 (OpenCL: the producer's f16 copy) and at bf16 (the CPU backend: the products read
// a bf16 image made once a hold, not a pack per product; dfmcpu37).
void Trainer::hold_input(const Tensor& t) {
  if (sw_.precision == Precision::f32) return;
  be_.hold_read_only(t);
  held_inputs_.push_back(&t);
}

void Trainer::release_inputs() {
  for (const Tensor* t : held_inputs_) be_.release_read_only(*t);
  held_inputs_.clear();
}

void Trainer::reset() {
  release_inputs();
  release_params();  // rewritten below
  const auto& host = init_.tensors();
  std::vector<float> table;
  for (int f = 0; f < 4; ++f)
    table.insert(table.end(), host[f].values.begin(), host[f].values.end());
  be_.write(table, table_);
  for (size_t i = 1; i < params_.size(); ++i) be_.write(host[i + 3].values, *params_[i]);
  // The whole flat buffers: the padding between parts stays zero for AdamW (core_ops.h).
  be_.fill(flat_m_, 0.f);
  be_.fill(flat_v_, 0.f);
  const auto& lv = host.back().values;
  for (int t = 0; t < kTasks; ++t) log_vars_[t] = lv[t], lv_m_[t] = lv_v_[t] = 0;
  step_ = skipped_ = clean_ = 0;
  scale_ = sw_.loss_scaling ? kInitialScale : 1.0;
  be_.synchronize();
}

void Trainer::gemm(const Tensor& a, bool ta, const Tensor& b, bool tb, Tensor& c, int64_t m,
                   int64_t n, int64_t k, float beta, float alpha, const Tensor* bias) {
  GemmBatch g;
  g.bias = bias;
  g.m = m, g.n = n, g.k = k;
  g.trans_a = ta, g.trans_b = tb;
  g.alpha = alpha, g.beta = beta;
  g.lda = ta ? m : k;
  g.ldb = tb ? k : n;
  g.ldc = n;
  g.a_offsets = g.b_offsets = g.c_offsets = {0};
  batched(g, a, b, c);
}

void Trainer::batched(GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c) {
  g.precision = sw_.precision;
  g.autotune = sw_.autotune;
  be_.gemm_batched(g, a, b, c);
}

void Trainer::linear_forward(const Tensor& x, const Linear& l, Tensor& y, int64_t rows) {
  const int64_t out = l.w.dim(0), in = l.w.dim(1);
  // The bias in the product's epilogue where the backend has one (CoreOps::fuses_gemm_bias):
  // a launch fewer a layer on NVIDIA's tensor-core path.
  gemm(x, false, l.w, true, y, rows, out, in, 0.f, 1.f, &l.b);
}

void Trainer::linear_backward(const Tensor& x, const Tensor& dy, Linear& l, Tensor* dx,
                              int64_t rows, float beta) {
  // dW = dy^T x, db, dx = dy W in one op: the OpenCL backend packs both products' f16 operands
  // and sums db in one launch (dfm36; STAGEBENCH_LINEAR_GRADS=off: two products and a sum).
  const int64_t out = l.w.dim(0), in = l.w.dim(1);
  be_.linear_backward(x.reshaped({rows, in}), dy.reshaped({rows, out}), l.w, l.dw, l.db, dx, beta,
                      sw_.precision, sw_.autotune);
}

DropoutKey Trainer::key(int site) const {
  return {c_.dropout, seed_, static_cast<uint64_t>(step_) * 16 + static_cast<uint64_t>(site)};
}

// --- forward --------------------------------------------------------------------------------

void Trainer::attention_forward() {
  const int64_t e = c_.embed, hd = c_.head_dim(), heads = c_.heads, b = batch_;
  linear_forward(s_.reshaped({rows_, e}), qkv_, qkv_act_, rows_);
  GemmBatch sc;  // scores[b, h] = Q_bh K_bh^T / sqrt(dh), 4 x 4 per item
  sc.m = 4, sc.n = 4, sc.k = hd, sc.trans_b = true;
  sc.alpha = 1.f / std::sqrt(static_cast<float>(hd));
  sc.lda = sc.ldb = 3 * e, sc.ldc = 4;
  GemmBatch pv;  // attn[b, :, h] = P_bh V_bh
  pv.m = 4, pv.n = hd, pv.k = 4, pv.trans_b = false;
  pv.lda = 4, pv.ldb = 3 * e, pv.ldc = e;
  for (int64_t i = 0; i < b; ++i)
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t base = i * 4 * 3 * e + h * hd, item = (i * heads + h) * 16;
      sc.a_offsets.push_back(base);
      sc.b_offsets.push_back(base + e);
      sc.c_offsets.push_back(item);
      pv.a_offsets.push_back(item);
      pv.b_offsets.push_back(base + 2 * e);
      pv.c_offsets.push_back(i * 4 * e + h * hd);
    }
  batched(sc, qkv_act_, qkv_act_, probs_);
  be_.softmax_rows(probs_);
  be_.dropout(probs_, key(kAttnProbs), probs_drop_);
  // The out-projection reads attn_ at f16: its producer writes the copy (dfm36), so that product
  // launches no pack.
  if (sw_.attn_copy) notice_input(attn_);
  batched(pv, probs_drop_, qkv_act_, attn_);
  if (sw_.attn_copy) hold_input(attn_);
  linear_forward(attn_, out_, o_, rows_);
  be_.dropout(o_, key(kAttnOut), o_);
}

void Trainer::fm_forward() {
  const int64_t e = c_.embed, b = batch_;
  if (sw_.gram_fm) {
    // All pairs at once: the Gram matrix S_b S_b^T per item, its upper triangle gathered.
    GemmBatch g;
    g.m = 4, g.n = 4, g.k = e, g.trans_b = true;
    g.lda = g.ldb = e, g.ldc = 4;
    for (int64_t i = 0; i < b; ++i) {
      g.a_offsets.push_back(i * 4 * e);
      g.b_offsets.push_back(i * 4 * e);
      g.c_offsets.push_back(i * 16);
    }
    batched(g, s_, s_, gram_);
    be_.gather_cols(gram_, kGramCells, fm_);
    return;
  }
  // The seed's "before": one dot product per pair into a list, then torch.cat.
  std::vector<Tensor> parts;
  std::vector<const Tensor*> list;
  for (const auto& [fi, fj] : kPairFields) {
    Tensor dot = be_.empty({b, 1});
    GemmBatch g;
    g.m = 1, g.n = 1, g.k = e, g.trans_b = true;
    g.lda = g.ldb = e, g.ldc = 1;
    for (int64_t i = 0; i < b; ++i) {
      g.a_offsets.push_back(i * 4 * e + fi * e);
      g.b_offsets.push_back(i * 4 * e + fj * e);
      g.c_offsets.push_back(i);
    }
    batched(g, s_, s_, dot);
    parts.push_back(std::move(dot));
  }
  for (const auto& p : parts) list.push_back(&p);
  be_.concat_last(list, fm_);
}

void Trainer::forward_model(const DeviceBatch& batch) {
  const int64_t e = c_.embed, n = rows_;
  release_inputs();  // the last step's: written again below
  notice_input(s_);
  be_.embedding(table_, batch.ids, nullptr, s_);
  hold_input(s_);
  // Encoder layer, post-norm: x1 = S + drop(attn(S)); h1 = LN1(x1); x2 = h1 + drop(FFN(h1)).
  attention_forward();
  be_.add(s_.reshaped({n, e}), o_, x1_);
  notice_input(h1_);
  be_.layernorm(x1_, n1g_, n1b_, c_.eps, h1_);
  hold_input(h1_);
  linear_forward(h1_, lin1_, f_, n);
  notice_input(ad_);
  if (sw_.fused_dropout) {
    be_.activation_dropout(f_, Act::relu, key(kFfnAct), ad_);
  } else {
    be_.activation(f_, Act::relu, a_);
    be_.dropout(a_, key(kFfnAct), ad_);
  }
  hold_input(ad_);
  linear_forward(ad_, lin2_, g_, n);
  be_.dropout(g_, key(kFfnOut), g_);
  be_.add(h1_, g_, x2_);
  Tensor t = t_.reshaped({n, e});
  notice_input(t_);
  be_.layernorm(x2_, n2g_, n2b_, c_.eps, t);
  hold_input(t_);
  // Deep branch on the flattened encoder output.
  const Tensor* in = &t_;
  for (size_t l = 0; l < deep_.size(); ++l) {
    linear_forward(*in, deep_[l], u_[l], batch_);
    const DropoutKey k = key(kDeep0 + static_cast<int>(l));
    const bool feeds_product = l + 1 < deep_.size();  // the last feeds the heads' concat
    if (feeds_product) notice_input(z_[l]);
    if (sw_.fused_dropout) {
      be_.activation_dropout(u_[l], Act::gelu_erf, k, z_[l]);
    } else {
      be_.activation(u_[l], Act::gelu_erf, z_[l]);
      be_.dropout(z_[l], k, z_[l]);
    }
    if (feeds_product) hold_input(z_[l]);
    in = &z_[l];
  }
  fm_forward();
  const Tensor* parts[] = {&z_.back(), &fm_};
  be_.concat_last(parts, hcat_);
  for (int t = 0; t < kTasks; ++t) linear_forward(hcat_, heads_[t], logits_[t], batch_);
}

// Each loss writes its value and the gradient of the weighted total (times the loss scale)
// with respect to its logits: d/dL_t of exp(-s_t) p_t L_t is exp(-s_t) p_t.
void Trainer::losses(const DeviceBatch& batch) {
  std::array<float, kTasks> scale{};
  for (int t = 0; t < kTasks; ++t)
    scale[t] = static_cast<float>(std::exp(-log_vars_[t]) * kTaskPriority[t] * scale_);
  constexpr float kSmoothing = 0.1f;
  if (sw_.preallocated_loss) {
    be_.bce_with_logits(logits_[0], batch.outcome, scale[0], loss_, 0, dlogits_[0]);
    be_.cross_entropy(logits_[1], batch.direction, nullptr, kSmoothing, scale[1], loss_, 1,
                      dlogits_[1]);
    be_.cross_entropy(logits_[2], batch.type, &type_weights_, kSmoothing, scale[2], loss_, 2,
                      dlogits_[2]);
    return;
  }
  // The seed's "before": each loss a new tensor in a list, then torch.stack.
  std::array<Tensor, kTasks> each;
  for (auto& l : each) l = be_.empty({1, 1});
  be_.bce_with_logits(logits_[0], batch.outcome, scale[0], each[0], 0, dlogits_[0]);
  be_.cross_entropy(logits_[1], batch.direction, nullptr, kSmoothing, scale[1], each[1], 0,
                    dlogits_[1]);
  be_.cross_entropy(logits_[2], batch.type, &type_weights_, kSmoothing, scale[2], each[2], 0,
                    dlogits_[2]);
  const Tensor* list[] = {&each[0], &each[1], &each[2]};
  Tensor stacked = be_.empty({1, kTasks});
  be_.concat_last(list, stacked);
  loss_ = stacked.reshaped({kTasks});
}

// --- backward -------------------------------------------------------------------------------

void Trainer::fm_backward() {
  const int64_t e = c_.embed, b = batch_;
  if (sw_.gram_fm) {
    // dS_b = (dG_b + dG_b^T) S_b, dG holding dfm in the gathered cells.
    be_.fill(dgram_, 0.f);
    be_.scatter_add_cols(dfm_, kGramCells, dgram_);
    GemmBatch g;
    g.m = 4, g.n = e, g.k = 4, g.trans_b = false;
    g.lda = 4, g.ldb = e, g.ldc = e;
    for (int64_t i = 0; i < b; ++i) {
      g.a_offsets.push_back(i * 16);
      g.b_offsets.push_back(i * 4 * e);
      g.c_offsets.push_back(i * 4 * e);
    }
    // The first product covers all of dS (every item's 4 x e block), so it writes dS (beta 0,
    // which reads no C) and backward() fills none: a launch fewer a step, the same values.
    g.beta = 0.f;
    batched(g, dgram_, s_, ds_);
    g.trans_a = true;
    g.beta = 1.f;
    batched(g, dgram_, s_, ds_);
    return;
  }
  // Per pair: d e_i += dfm_p e_j and d e_j += dfm_p e_i (rank-one items, one per row).
  for (int p = 0; p < kPairs; ++p) {
    Tensor dp = be_.empty({b, 1});
    be_.slice_last(dfm_, p, dp);
    for (int side = 0; side < 2; ++side) {
      const int64_t to = kPairFields[p][side], from = kPairFields[p][1 - side];
      GemmBatch g;
      g.m = 1, g.n = e, g.k = 1, g.trans_b = false;
      g.lda = 1, g.ldb = e, g.ldc = e;
      g.beta = 1.f;
      for (int64_t i = 0; i < b; ++i) {
        g.a_offsets.push_back(i);
        g.b_offsets.push_back(i * 4 * e + from * e);
        g.c_offsets.push_back(i * 4 * e + to * e);
      }
      batched(g, dp, s_, ds_);
    }
  }
}

void Trainer::attention_backward() {
  const int64_t e = c_.embed, hd = c_.head_dim(), heads = c_.heads, b = batch_;
  const float alpha = 1.f / std::sqrt(static_cast<float>(hd));
  // do_ holds d(out_proj output) after its dropout's backward.
  linear_backward(attn_, do_, out_, &dattn_, rows_);
  GemmBatch dp, dv, dq, dk;
  dp.m = 4, dp.n = 4, dp.k = hd, dp.trans_b = true, dp.lda = e, dp.ldb = 3 * e, dp.ldc = 4;
  dv.m = 4, dv.n = hd, dv.k = 4, dv.trans_a = true, dv.trans_b = false;
  dv.lda = 4, dv.ldb = e, dv.ldc = 3 * e;
  dq.m = 4, dq.n = hd, dq.k = 4, dq.trans_b = false, dq.alpha = alpha;
  dq.lda = 4, dq.ldb = 3 * e, dq.ldc = 3 * e;
  dk = dq;
  dk.trans_a = true;
  for (int64_t i = 0; i < b; ++i)
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t base = i * 4 * 3 * e + h * hd, item = (i * heads + h) * 16;
      const int64_t out = i * 4 * e + h * hd;
      dp.a_offsets.push_back(out), dp.b_offsets.push_back(base + 2 * e);
      dp.c_offsets.push_back(item);
      dv.a_offsets.push_back(item), dv.b_offsets.push_back(out);
      dv.c_offsets.push_back(base + 2 * e);
      dq.a_offsets.push_back(item), dq.b_offsets.push_back(base + e);
      dq.c_offsets.push_back(base);
      dk.a_offsets.push_back(item), dk.b_offsets.push_back(base);
      dk.c_offsets.push_back(base + e);
    }
  batched(dp, dattn_, qkv_act_, dprobs_);               // d(dropped P) = dO V^T
  batched(dv, probs_drop_, dattn_, dqkv_);              // dV = P^T dO
  be_.dropout(dprobs_, key(kAttnProbs), dprobs_);       // through the probabilities' dropout
  be_.softmax_rows_backward(probs_, dprobs_, dprobs_);  // d scores
  batched(dq, dprobs_, qkv_act_, dqkv_);                // dQ = dS K / sqrt(dh)
  batched(dk, dprobs_, qkv_act_, dqkv_);                // dK = dS^T Q / sqrt(dh)
  Tensor ds = ds_.reshaped({rows_, e});
  linear_backward(s_.reshaped({rows_, e}), dqkv_, qkv_, &ds, rows_, 1.f);
}

void Trainer::backward(const DeviceBatch& batch) {
  const int64_t e = c_.embed, h = c_.deep_out(), n = rows_;
  // Heads: dhcat = sum_t dlogits_t W_t.
  for (int t = 0; t < kTasks; ++t)
    linear_backward(hcat_, dlogits_[t], heads_[t], &dhcat_, batch_, t == 0 ? 0.f : 1.f);
  be_.slice_last(dhcat_, h, dfm_);
  be_.slice_last(dhcat_, 0, dz_.back());
  // FM first: it starts dS, which the encoder's backward then adds to (the Gram form writes
  // all of it; the per-pair form adds into zeros).
  if (!sw_.gram_fm) be_.fill(ds_, 0.f);
  fm_backward();
  for (size_t l = deep_.size(); l-- > 0;) {
    const DropoutKey k = key(kDeep0 + static_cast<int>(l));
    if (sw_.fused_dropout) {
      be_.dropout_activation_backward(u_[l], dz_[l], Act::gelu_erf, k, dz_[l]);
    } else {
      be_.dropout(dz_[l], k, dz_[l]);
      be_.activation_backward(u_[l], dz_[l], Act::gelu_erf, dz_[l]);
    }
    const Tensor& in = l == 0 ? t_ : z_[l - 1];
    Tensor* din = l == 0 ? &dt_ : &dz_[l - 1];
    linear_backward(in, dz_[l], deep_[l], din, batch_);
  }
  // Encoder layer, in reverse.
  be_.layernorm_backward(x2_, n2g_, c_.eps, dt_.reshaped({n, e}), dx_, dn2g_, dn2b_);
  be_.dropout(dx_, key(kFfnOut), dg_);  // d(linear2 output)
  linear_backward(ad_, dg_, lin2_, &dad_, n);
  if (sw_.fused_dropout) {
    be_.dropout_activation_backward(f_, dad_, Act::relu, key(kFfnAct), df_);
  } else {
    be_.dropout(dad_, key(kFfnAct), dad_);
    be_.activation_backward(f_, dad_, Act::relu, df_);
  }
  linear_backward(h1_, df_, lin1_, &dx_, n, 1.f);  // dh1 = dx2 + dFFN
  be_.layernorm_backward(x1_, n1g_, c_.eps, dx_, dx_, dn1g_, dn1b_);
  Tensor ds = ds_.reshaped({n, e});
  be_.add(ds, dx_, ds);  // the residual's share
  be_.dropout(dx_, key(kAttnOut), do_);
  attention_backward();
  be_.fill(dtable_, 0.f);
  be_.embedding_backward(ds_, batch.ids, dtable_);
}

// --- update ---------------------------------------------------------------------------------

StepResult Trainer::update() {
  StepResult r;
  // The overflow check's norm written beside the losses, so that one download (one wait for the
  // device) reads both: before, the losses' download waited for the backward and the norm's for
  // sum_squares, two round trips a step with the device idle (dfm36).
  const bool one_sync = sw_.one_sync && sw_.loss_scaling && sw_.preallocated_loss;
  if (one_sync) be_.sum_squares(flat_g_, loss_, kTasks);
  const std::vector<float> l = be_.download(loss_);
  const double inv_scale = 1.0 / scale_;
  for (int t = 0; t < kTasks; ++t) {
    r.task_loss[t] = l[t];
    r.loss += std::exp(-log_vars_[t]) * kTaskPriority[t] * l[t] + log_vars_[t];
  }
  if (sw_.loss_scaling) {
    if (!one_sync) be_.sum_squares(flat_g_, norms_, 0);
    if (!std::isfinite(one_sync ? l[kTasks] : be_.download(norms_)[0])) {
      r.skipped = true;
      ++skipped_;
      scale_ *= kBackoff;
      clean_ = 0;
      ++step_;
      return r;
    }
    if (++clean_ == kGrowthInterval) scale_ *= kGrowth, clean_ = 0;
  }
  ++step_;
  AdamWStep s;
  s.lr = c_.lr, s.weight_decay = c_.weight_decay, s.step = step_;
  s.grad_scale = static_cast<float>(inv_scale);
  // The step is the parameters' last write before the next forward's f16 products read them
  // (their W operands), and nothing else writes them until the next step or reset().
  release_params();
  if (sw_.precision == Precision::f16) be_.will_hold_read_only(flat_p_, Precision::f16);
  be_.adamw(flat_p_, flat_g_, flat_m_, flat_v_, s);
  if (sw_.precision != Precision::f32) {
    be_.hold_read_only(flat_p_);
    params_held_ = true;
  }
  // The three uncertainty weights live on the host: d/ds_t = 1 - exp(-s_t) p_t L_t.
  const double b1 = s.beta1, b2 = s.beta2;
  for (int t = 0; t < kTasks; ++t) {
    const double g = 1.0 - std::exp(-log_vars_[t]) * kTaskPriority[t] * l[t];
    lv_m_[t] = b1 * lv_m_[t] + (1 - b1) * g;
    lv_v_[t] = b2 * lv_v_[t] + (1 - b2) * g * g;
    const double mhat = lv_m_[t] / (1 - std::pow(b1, static_cast<double>(step_)));
    const double vhat = lv_v_[t] / (1 - std::pow(b2, static_cast<double>(step_)));
    log_vars_[t] *= 1 - static_cast<double>(s.lr) * s.weight_decay;
    log_vars_[t] -= s.lr * mhat / (std::sqrt(vhat) + s.eps);
  }
  return r;
}

std::vector<float> Trainer::parameters() {
  std::vector<float> all;
  for (Tensor* p : params_) {
    const std::vector<float> v = be_.download(*p);
    all.insert(all.end(), v.begin(), v.end());
  }
  for (double s : log_vars_) all.push_back(static_cast<float>(s));
  return all;
}

MemorySplit Trainer::memory() const {
  MemorySplit m;
  for (size_t i = 0; i < params_.size(); ++i) {
    m.parameters += params_[i]->bytes();
    m.gradients += grads_[i]->bytes();
    m.optimizer_state += m_[i].bytes() + v_[i].bytes();
  }
  for (const Tensor* t : {&s_, &qkv_act_, &probs_, &probs_drop_, &attn_, &o_, &x1_, &h1_, &f_, &a_,
                          &ad_, &g_, &x2_, &t_, &fm_, &gram_, &hcat_})
    m.activations += t->bytes();
  for (const auto& v : {&u_, &z_})
    for (const Tensor& t : *v) m.activations += t.bytes();
  for (const Tensor& t : logits_) m.activations += t.bytes();
  return m;
}

}  // namespace sb::deepfm
