// Op cases: attention (logit biases, the fused masked and relative attentions) and Enformer's
// attention pooling.
#include <gtest/gtest.h>

#include "tests/ops/op_case.h"

namespace sb::testing {
namespace {

// Masked attention over q, k, v in one packed [B, n, 3D] tensor (or three of their own with
// wider leading dimensions); out has a leading dimension of its own whose extra columns must
// keep what they held. Off the kernels' query blocks and key tiles in n.
struct MaskedCase {
  int64_t batch, n, heads, dh;
  bool packed;
  bool bias;
  int64_t trailing_masked;  // keys masked at the end of the last item
  int64_t leading_masked;   // keys masked at the start of the first item
};

std::vector<Check> run_masked(Backend& be, const MaskedCase& c) {
  const int64_t d = c.heads * c.dh;
  AttentionShape s;
  s.batch = c.batch, s.n = c.n, s.heads = c.heads, s.dh = c.dh;
  s.scale = 1.0f / std::sqrt(float(c.dh));
  if (c.packed) {
    s.ld_q = s.ld_k = s.ld_v = 3 * d, s.q_col = 0, s.k_col = d, s.v_col = 2 * d;
  } else {
    s.ld_q = d + 8, s.q_col = 5, s.ld_k = d, s.k_col = 0, s.ld_v = d + 4, s.v_col = 4;
  }
  s.ld_out = d + 3;
  const int64_t rows = c.batch * c.n;
  const Vec q = random_vec(rows * s.ld_q, 20 + c.n, -2, 2);
  const Vec k = c.packed ? q : random_vec(rows * s.ld_k, 21 + c.n, -2, 2);
  const Vec v = c.packed ? q : random_vec(rows * s.ld_v, 22 + c.n, -2, 2);
  Vec bias;
  if (c.bias) {
    bias = random_vec(rows, 23 + c.n, -0.5f, 0.5f);
    for (int64_t j = c.n - c.trailing_masked; j < c.n; ++j) bias[rows - c.n + j] = kMaskedLogit;
    for (int64_t j = 0; j < c.leading_masked; ++j) bias[j] = kMaskedLogit;
  }
  const Vec out0 = random_vec(rows * s.ld_out, 24);
  const Tensor qt = up(be, q, {c.batch, c.n, s.ld_q});
  const Tensor kt = c.packed ? qt : up(be, k, {c.batch, c.n, s.ld_k});
  const Tensor vt = c.packed ? qt : up(be, v, {c.batch, c.n, s.ld_v});
  const Tensor bt = c.bias ? up(be, bias, {c.batch, c.n}) : Tensor();
  Tensor out = up(be, out0, {c.batch, c.n, s.ld_out});
  be.attention_fused(s, qt, kt, vt, c.bias ? &bt : nullptr, out);
  DVec want = attention_ref(s, q, k, v, bias);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t col = d; col < s.ld_out; ++col)
      want[r * s.ld_out + col] = out0[r * s.ld_out + col];
  return {{"out", be.download(out), want}};
}

// The separate-pass relative attention, as Enformer's eager stage runs it: biased queries,
// content and positional GEMMs, the relative shift, softmax, the weighted sum.
std::vector<Check> run_relative_separate(Backend& be, const RelAttentionInputs& in) {
  const auto& s = in.s;
  const int64_t n = s.n, hk = s.heads * s.dk, hv = s.heads * s.dv, groups = s.batch * s.heads;
  const Tensor q = up(be, in.q, {s.batch, n, hk}), k = up(be, in.k, {s.batch, n, hk});
  const Tensor v = up(be, in.v, {s.batch, n, hv}), rel_k = up(be, in.rel_k, {2 * n - 1, hk});
  const Tensor cb = up(be, in.content_bias, {hk}), pb = up(be, in.pos_bias, {hk});
  Tensor qc = be.empty(q.shape()), qp = be.empty(q.shape());
  be.affine_channels(q, nullptr, &cb, qc);
  be.affine_channels(q, nullptr, &pb, qp);
  Tensor logits = be.empty({groups, n, n}), rel = be.empty({groups, n, 2 * n - 1});
  GemmBatch content{n, n, s.dk, true, 1.f, hk, hk, n, {}, {}, {}};
  GemmBatch positional{n, 2 * n - 1, s.dk, true, 1.f, hk, hk, 2 * n - 1, {}, {}, {}};
  GemmBatch mix{n, s.dv, n, false, 1.f, n, hv, hv, {}, {}, {}};
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads; ++h) {
      const int64_t g = b * s.heads + h;
      content.a_offsets.push_back(b * n * hk + h * s.dk);
      content.b_offsets.push_back(b * n * hk + h * s.dk);
      content.c_offsets.push_back(g * n * n);
      positional.a_offsets.push_back(b * n * hk + h * s.dk);
      positional.b_offsets.push_back(h * s.dk);
      positional.c_offsets.push_back(g * n * (2 * n - 1));
      mix.a_offsets.push_back(g * n * n);
      mix.b_offsets.push_back(b * n * hv + h * s.dv);
      mix.c_offsets.push_back(b * n * hv + h * s.dv);
    }
  be.gemm_batched(content, qc, k, logits);
  be.gemm_batched(positional, qp, rel_k, rel);
  be.rel_shift_add(logits, rel);
  be.softmax_rows(logits);
  Tensor out = be.empty({s.batch, n, hv});
  be.gemm_batched(mix, logits, v, out);
  return {{"out", be.download(out), in.reference()}};
}

std::vector<OpCase> logit_bias_cases() {
  std::vector<OpCase> c;
  // n = 8: rows of whole quads (the OpenCL kernel's vector path); n = 5: quads across rows.
  for (const int64_t n : {5, 8}) {
    c.push_back({Op::add_key_bias,
                 n == 5 ? "over_heads_and_queries" : "rows_of_quads",
                 {},
                 [n](Backend& be) {
                   const int64_t batch = 2, heads = 3;
                   const Vec logits = random_vec(batch * heads * n * n, 4),
                             bias = random_vec(batch * n, 5, -3, 3);
                   Tensor t = up(be, logits, {batch * heads, n, n});
                   be.add_key_bias(t, up(be, bias, {batch, n}), heads);
                   DVec want(logits.size());
                   for (size_t e = 0; e < logits.size(); ++e)
                     want[e] = double(logits[e]) + bias[(e / (n * n) / heads) * n + e % n];
                   return std::vector<Check>{{"logits", be.download(t), want}};
                 }});
  }
  c.push_back({Op::rel_shift_add, "shifted_rows", {}, [](Backend& be) {
                 const int64_t groups = 3, n = 6;
                 const Vec lg = random_vec(groups * n * n, 90),
                           rel = random_vec(groups * n * (2 * n - 1), 91);
                 Tensor t = up(be, lg, {groups, n, n});
                 be.rel_shift_add(t, up(be, rel, {groups, n, 2 * n - 1}));
                 DVec want(lg.size());
                 for (int64_t g = 0; g < groups; ++g)
                   for (int64_t i = 0; i < n; ++i)
                     for (int64_t j = 0; j < n; ++j)
                       want[(g * n + i) * n + j] = double(lg[(g * n + i) * n + j]) +
                                                   rel[(g * n + i) * (2 * n - 1) + n - 1 + j - i];
                 return std::vector<Check>{{"logits", be.download(t), want}};
               }});
  // Under gemm_batched, whose test has built the batched GEMM's kernels already.
  c.push_back(
      {Op::gemm_batched, "in_the_separate_pass_relative_attention", {}, [](Backend& be) {
         return run_relative_separate(be, RelAttentionInputs({2, shape(37, 11), 2, 16, 24}));
       }});
  return c;
}

std::vector<OpCase> fused_attention_cases() {
  std::vector<OpCase> c;
  const std::pair<const char*, MaskedCase> masked[] = {
      {"packed_dh16_trailing_mask", {2, 37, 3, 16, true, true, 9, 0}},
      {"packed_dh64_leading_and_trailing_mask", {2, shape(70, 37), 2, 64, true, true, 13, 31}},
      {"packed_dh8_no_bias", {2, shape(70, 37), 3, 8, true, false, 0, 0}},
      {"dh24", {1, 5, 2, 24, true, true, 0, 0}},
      {"dh128", {2, 19, 1, 128, true, true, 4, 0}},
      {"separate_tensors_wide_lds", {2, 33, 2, 16, false, false, 0, 0}},
  };
  for (const auto& [name, mc] : masked)
    c.push_back({Op::attention_fused, name, {}, [mc](Backend& be) { return run_masked(be, mc); }});
  // n off the 16-query and 16-key tiles (small shapes: two tiles, the second partial).
  const int64_t rel_n = shape(37, 19);
  std::string rel_name = "n";  // (GCC 12's -Wrestrict misfires on "n" + std::to_string)
  rel_name += std::to_string(rel_n) + "_dk16_dv24";
  c.push_back({Op::rel_attention_fused, rel_name, {}, [rel_n](Backend& be) {
                 const RelAttentionInputs in({2, rel_n, 2, 16, 24});
                 const auto& s = in.s;
                 const int64_t hk = s.heads * s.dk, hv = s.heads * s.dv;
                 Tensor out = be.empty({s.batch, s.n, hv});
                 be.rel_attention_fused(
                     s, up(be, in.q, {s.batch, s.n, hk}), up(be, in.k, {s.batch, s.n, hk}),
                     up(be, in.v, {s.batch, s.n, hv}), up(be, in.rel_k, {2 * s.n - 1, hk}),
                     up(be, in.content_bias, {hk}), up(be, in.pos_bias, {hk}), out);
                 return std::vector<Check>{{"out", be.download(out), in.reference()}};
               }});
  c.push_back({Op::attention_pool, "pairs_with_a_saturated_weight", {}, [](Backend& be) {
                 const int64_t batch = 2, len = 10, ch = 5;
                 const Vec x = random_vec(batch * len * ch, 80);
                 Vec lg = random_vec(batch * len * ch, 81, -5, 5);
                 lg[0] = 200.0f;
                 Tensor y = be.empty({batch, len / 2, ch});
                 be.attention_pool(up(be, x, {batch, len, ch}), up(be, lg, {batch, len, ch}), y);
                 const DVec w = softmax_ref(lg, batch * len / 2, 2, ch);
                 DVec want(y.numel());
                 for (int64_t p = 0; p < batch * len / 2; ++p)
                   for (int64_t i = 0; i < ch; ++i) {
                     const int64_t a = 2 * p * ch + i, b = a + ch;
                     want[p * ch + i] = x[a] * w[a] + x[b] * w[b];
                   }
                 return std::vector<Check>{{"y", be.download(y), want}};
               }});
  // The next conv block's input transform (BN + GELU) applied before the store (Enformer's tower
  // pools, issue 27): 16 channels take the eight-channel kernel, 5 the one-channel one; with a
  // scale only, a shift only and both, so a kernel that dropped either fails.
  struct PoolTransform {
    const char* name;
    int64_t ch;
    bool scale, shift;
  };
  for (const PoolTransform& p :
       {PoolTransform{"bn_gelu_c16", 16, true, true}, PoolTransform{"bn_gelu_c5", 5, true, true},
        PoolTransform{"scale_gelu_c16", 16, true, false},
        PoolTransform{"shift_gelu_c5", 5, false, true}})
    c.push_back({Op::attention_pool, p.name, {}, [p](Backend& be) {
                   const int64_t batch = 2, len = 12, ch = p.ch;
                   const Vec x = random_vec(batch * len * ch, 82);
                   const Vec lg = random_vec(batch * len * ch, 83, -4, 4);
                   const Vec scale = random_vec(ch, 84, 0.5f, 1.5f), shift = random_vec(ch, 85);
                   const Tensor st = up(be, scale, {ch}), ht = up(be, shift, {ch});
                   Tensor y = be.empty({batch, len / 2, ch});
                   be.attention_pool(up(be, x, {batch, len, ch}), up(be, lg, {batch, len, ch}), y,
                                     {p.scale ? &st : nullptr, p.shift ? &ht : nullptr, Act::gelu});
                   const DVec w = softmax_ref(lg, batch * len / 2, 2, ch);
                   DVec want(y.numel());
                   for (int64_t q = 0; q < batch * len / 2; ++q)
                     for (int64_t i = 0; i < ch; ++i) {
                       const int64_t a = 2 * q * ch + i, b = a + ch;
                       double v = x[a] * w[a] + x[b] * w[b];
                       if (p.scale) v *= scale[i];
                       if (p.shift) v += shift[i];
                       want[q * ch + i] = act_ref(Act::gelu, v);
                     }
                   return std::vector<Check>{{"y", be.download(y), want}};
                 }});
  return c;
}

}  // namespace

void add_attention_cases(std::vector<OpCase>& cases) {
  for (auto* group : {&logit_bias_cases, &fused_attention_cases})
    for (OpCase& c : group()) cases.push_back(std::move(c));
}

}  // namespace sb::testing
