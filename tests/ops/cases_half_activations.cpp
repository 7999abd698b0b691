// Op cases: f16 activations (issue 27), as a half-precision stage passes them between kernels.
// The f16 inputs are made by layernorm (f32 in, f16 out; checked first), their exact values read
// back for the references. LayerNorm's f16 paths run wherever the backend has f16 GEMMs (PoCL
// included); the linear and attention ones need NVIDIA's f16 tensor-core kernels.
#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include "tests/ops/op_case.h"

namespace sb::testing {
namespace {

constexpr float kLayerNormEps = 1e-5f;

// rows x cols of LayerNorm(random) as f16, and the values it holds.
struct HalfRows {
  Tensor t;
  Vec v;
};

HalfRows half_rows(Backend& be, std::vector<int64_t> shape, uint32_t seed) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  const int64_t cols = shape.back();
  HalfRows h{be.empty(shape, DType::f16), {}};
  be.layernorm(up(be, random_vec(n, seed, -3, 3), shape),
               up(be, random_vec(cols, seed + 1), {cols}),
               up(be, random_vec(cols, seed + 2), {cols}), kLayerNormEps, h.t);
  h.v = be.download(h.t);
  return h;
}

// Tensor cores' f16 kernels: the f16 GEMMs and, on OpenCL, the tf32 probe NVIDIA's pass.
std::string needs_tensor_core_f16(Backend& be) {
  if (std::string why = be.unsupported_reason(Precision::f16); !why.empty()) return why;
  return be.unsupported_reason(Precision::tf32);
}

}  // namespace

void add_half_activation_cases(std::vector<OpCase>& c) {
  // Exact: values f16 holds, and ties that rounding to nearest even sends to the even neighbour
  // (1 + 3 x 2^-11 goes up to 1 + 2^-9; truncation would give 1 + 2^-10), past 8 elements so
  // that a vector body and a tail both run.
  c.push_back({Op::convert, "f32_to_f16_rounds_to_nearest_even", needs_precision(Precision::f16),
               [](Backend& be) {
                 const double ulp = std::ldexp(1.0, -10), tie = ulp / 2;
                 const DVec want = {1, -2, 1, 1 + 2 * ulp, 65504, 0.5, -1, 1 + 2 * ulp, 0.25, 3};
                 const Vec x = {1,     -2,  float(1 + tie),  float(1 + 3 * tie),
                                65504, 0.5, float(-1 - tie), float(1 + 2 * ulp - tie),
                                0.25,  3};
                 Tensor y = be.empty({2, 5}, DType::f16);
                 be.convert(up(be, x, {2, 5}), y);
                 return std::vector<Check>{{"y", be.download(y), want, Precision::f32, 1e-12}};
               }});
  c.push_back({Op::convert, "f16_to_f32_and_f16", needs_precision(Precision::f16), [](Backend& be) {
                 const HalfRows h = half_rows(be, {3, 40}, 95);
                 Tensor wide = be.empty({3, 40}), copy = be.empty({3, 40}, DType::f16);
                 be.convert(h.t, wide);
                 be.convert(h.t, copy);
                 const DVec want(h.v.begin(), h.v.end());
                 return std::vector<Check>{{"f32", be.download(wide), want, Precision::f32, 1e-12},
                                           {"f16", be.download(copy), want, Precision::f32, 1e-12}};
               }});
  c.push_back({Op::layernorm, "f32_in_f16_out", needs_precision(Precision::f16), [](Backend& be) {
                 const int64_t cols = 256;
                 const Vec x = random_vec(6 * cols, 90, -3, 3), g = random_vec(cols, 91),
                           b = random_vec(cols, 92);
                 Tensor y = be.empty({2, 3, cols}, DType::f16);
                 be.layernorm(up(be, x, {2, 3, cols}), up(be, g, {cols}), up(be, b, {cols}),
                              kLayerNormEps, y);
                 return std::vector<Check>{{"y", be.download(y),
                                            layernorm_ref(x, g, b, cols, kLayerNormEps),
                                            Precision::f16}};
               }});
  // 300: off the 32 lanes; 264: whole 8-column groups (OpenCL's 16-byte kernel)
  for (const int64_t cols : {300, 264})
    for (const bool f32_out : {false, true})
      c.push_back(
          {Op::add_layernorm,
           std::string(f32_out ? "f16_in_f32_out" : "f16_in_out") + (cols == 300 ? "" : "_cols264"),
           needs_precision(Precision::f16), [f32_out, cols](Backend& be) {
             const HalfRows x = half_rows(be, {3, 3, cols}, 93),
                            r = half_rows(be, {3, 3, cols}, 96);
             const Vec g = random_vec(cols, 99), b = random_vec(cols, 100);
             Tensor y = be.empty({3, 3, cols}, f32_out ? DType::f32 : DType::f16);
             be.add_layernorm(x.t, r.t, up(be, g, {cols}), up(be, b, {cols}), kLayerNormEps, y);
             Vec sum(x.v.size());
             for (size_t i = 0; i < sum.size(); ++i) sum[i] = x.v[i] + r.v[i];
             return std::vector<Check>{
                 {"y", be.download(y), layernorm_ref(sum, g, b, cols, kLayerNormEps),
                  f32_out ? Precision::f32 : Precision::f16, f32_out ? 1e-4 : 0.0}};
           }});
  // Every activation the epilogue unrolls for half outputs (Geneformer's is ReLU), and one it
  // does not (softplus: the row-at-a-time path).
  const std::pair<Act, const char*> acts[] = {{Act::none, "f16_in_out_bias"},
                                              {Act::relu, "f16_in_out_bias_relu"},
                                              {Act::gelu, "f16_in_out_bias_gelu"},
                                              {Act::gelu_erf, "f16_in_out_bias_gelu_erf"},
                                              {Act::softplus, "f16_in_out_bias_softplus"}};
  for (const auto& [kind, name] : acts)
    c.push_back(
        {Op::linear, name, needs_tensor_core_f16, [act = kind](Backend& be) {
           const int64_t m = 300, k = 256, n = 200;
           const HalfRows x = half_rows(be, {m, k}, 101);
           const Vec w = random_vec(n * k, 104, -0.2f, 0.2f), b = random_vec(n, 105);
           const Tensor bt = up(be, b, {n});
           Tensor y = be.empty({m, n}, DType::f16);
           be.linear(x.t, be.prepare_weight(w, n, k, Precision::f16), y, {&bt, act, nullptr});
           return std::vector<Check>{{"y", be.download(y),
                                      linear_ref(x.v, w, m, n, k, &b, act, nullptr),
                                      Precision::f16}};
         }});
  // The int8 pipeline on f16 activations (Geneformer's engine-int8): the quantize pass reads
  // halves, the epilogue writes them; calibrated (one scale from the range) and per call.
  for (const bool calibrated : {true, false})
    c.push_back(
        {Op::linear,
         calibrated ? "s8_calibrated_f16_in_out_bias_relu" : "s8_dynamic_f16_in_out_bias_relu",
         [](Backend& be) {
           if (std::string why = needs_tensor_core_f16(be); !why.empty()) return why;
           return be.unsupported_reason(Precision::int8);
         },
         [calibrated](Backend& be) {
           const int64_t m = 300, k = 256, n = 200;
           const HalfRows x = half_rows(be, {m, k}, 111);
           const Vec w = random_vec(n * k, 114, -0.2f, 0.2f), b = random_vec(n, 115);
           const Tensor bt = up(be, b, {n});
           Tensor y = be.empty({m, n}, DType::f16);
           Weight wt = be.prepare_weight(w, n, k, Precision::int8);
           if (calibrated) {
             float hi = 0.f;
             for (float v : x.v) hi = std::max(hi, std::abs(v));
             wt.input_lo = -hi, wt.input_hi = hi;
           }
           be.linear(x.t, wt, y, {&bt, Act::relu, nullptr});
           return std::vector<Check>{{"y", be.download(y),
                                      linear_ref(x.v, w, m, n, k, &b, Act::relu, nullptr),
                                      Precision::int8}};
         }});
  // n = 77: one 64-key tile and a partial one; 300: more tiles than the kernel's 3-stage
  // cp.async ring, the last partial, its keys past n read from the next item's rows (or past
  // the buffer) unless the in-place kernel zero-fills them (kernels/attention_mma_body.cl).
  for (const auto& [n_keys, name] : {std::pair<int64_t, const char*>{77, "f16_qkv_packed_f16_out"},
                                     {300, "f16_qkv_packed_f16_out_n300"}})
    c.push_back({Op::attention_fused, name, needs_tensor_core_f16, [n = n_keys](Backend& be) {
                   const int64_t batch = 2, heads = 2, dh = 64, d = heads * dh;
                   AttentionShape s;
                   s.batch = batch, s.n = n, s.heads = heads, s.dh = dh;
                   s.scale = 1.0f / std::sqrt(float(dh));
                   s.ld_q = s.ld_k = s.ld_v = 3 * d, s.q_col = 0, s.k_col = d, s.v_col = 2 * d;
                   s.ld_out = d;
                   s.precision = Precision::f16;
                   const HalfRows qkv = half_rows(be, {batch, n, 3 * d}, 106);
                   Vec bias = random_vec(batch * n, 109, -0.5f, 0.5f);
                   for (int64_t j = n - 5; j < n; ++j) bias[n + j] = kMaskedLogit;
                   const Tensor bt = up(be, bias, {batch, n});
                   Tensor out = be.empty({batch, n, d}, DType::f16);
                   be.attention_fused(s, qkv.t, qkv.t, qkv.t, &bt, out);
                   return std::vector<Check>{{"out", be.download(out),
                                              attention_ref(s, qkv.v, qkv.v, qkv.v, bias),
                                              Precision::f16}};
                 }});
  // Enformer's pointwise conv blocks in the half-activation stage: BN + GELU on the fp32 input,
  // bias, the fp32 residual added before y is rounded to f16. N 128: the epilogue's vector
  // branch; N 30 (rows off whole quads) and k 5: the row-at-a-time one, every tap.
  for (const auto& [taps, n_out, name] :
       {std::tuple<int, int64_t, const char*>{1, 128, "f16_out_residual_k1"},
        {5, 30, "f16_out_residual_k5_n30"}})
    c.push_back({Op::conv1d, name, needs_tensor_core_f16, [k = taps, n = n_out](Backend& be) {
                   const int64_t batch = 2, len = 37, ch = 64, m = batch * len;
                   const Vec x = random_vec(m * ch, 131),
                             w = random_vec(n * k * ch, 132, -0.2f, 0.2f);
                   const Vec scale = random_vec(ch, 133, 0.5f, 1.5f), shift = random_vec(ch, 134),
                             b = random_vec(n, 135), r = random_vec(m * n, 136, -4, 4);
                   const Tensor st = up(be, scale, {ch}), ht = up(be, shift, {ch}),
                                bt = up(be, b, {n}), rt = up(be, r, {batch, len, n});
                   Tensor y = be.empty({batch, len, n}, DType::f16);
                   be.conv1d(up(be, x, {batch, len, ch}), k,
                             be.prepare_weight(w, n, k * ch, Precision::f16), y,
                             {&bt, Act::none, &rt}, {&st, &ht, Act::gelu});
                   return std::vector<Check>{{"y", be.download(y),
                                              conv1d_ref(x, batch, len, ch, k, w, n, &scale, &shift,
                                                         Act::gelu, &b, Act::none, &r),
                                              Precision::f16}};
                 }});
  // The tower's conv blocks reading a pool's f16 output through BN + GELU, writing fp32.
  c.push_back({Op::conv1d, "f16_in_k5_f32_out", needs_tensor_core_f16, [](Backend& be) {
                 const int64_t batch = 2, len = 37, ch = 64, n = 96;
                 const int k = 5;
                 const HalfRows x = half_rows(be, {batch, len, ch}, 151);
                 const Vec w = random_vec(n * k * ch, 154, -0.2f, 0.2f);
                 const Vec scale = random_vec(ch, 155, 0.5f, 1.5f), shift = random_vec(ch, 156),
                           b = random_vec(n, 157);
                 const Tensor st = up(be, scale, {ch}), ht = up(be, shift, {ch}),
                              bt = up(be, b, {n});
                 Tensor y = be.empty({batch, len, n});
                 be.conv1d(x.t, k, be.prepare_weight(w, n, k * ch, Precision::f16), y,
                           {&bt, Act::none, nullptr}, {&st, &ht, Act::gelu});
                 return std::vector<Check>{{"y", be.download(y),
                                            conv1d_ref(x.v, batch, len, ch, k, w, n, &scale, &shift,
                                                       Act::gelu, &b, Act::none, nullptr),
                                            Precision::f16}};
               }});
  // ... and reading it in place where the pool already applied BN + GELU (no transform: no
  // channels_to_f16 pass, cp.async copies the pool's halves).
  c.push_back({Op::conv1d, "f16_in_k5_in_place", needs_tensor_core_f16, [](Backend& be) {
                 const int64_t batch = 2, len = 37, ch = 64, n = 96;
                 const int k = 5;
                 const HalfRows x = half_rows(be, {batch, len, ch}, 158);
                 const Vec w = random_vec(n * k * ch, 159, -0.2f, 0.2f), b = random_vec(n, 160);
                 const Tensor bt = up(be, b, {n});
                 Tensor y = be.empty({batch, len, n});
                 be.conv1d(x.t, k, be.prepare_weight(w, n, k * ch, Precision::f16), y, {&bt});
                 return std::vector<Check>{{"y", be.download(y),
                                            conv1d_ref(x.v, batch, len, ch, k, w, n, nullptr,
                                                       nullptr, Act::none, &b, Act::none, nullptr),
                                            Precision::f16}};
               }});
  // Sequences of 300 positions, 2 of them: 128-row tiles wholly inside a sequence with every tap
  // (the wgmma kernel's unchecked interior copies) beside tiles at a sequence's ends and across
  // the two (the checked ones); 128 channels, so a tap spans two K tiles.
  for (const bool in_place : {false, true})
    c.push_back({Op::conv1d, in_place ? "f16_in_k5_len300_in_place" : "f16_in_k5_len300_bn_gelu",
                 needs_tensor_core_f16, [in_place](Backend& be) {
                   const int64_t batch = 2, len = 300, ch = 128, n = 64;
                   const int k = 5;
                   const HalfRows x = half_rows(be, {batch, len, ch}, 161);
                   const Vec w = random_vec(n * k * ch, 162, -0.1f, 0.1f), b = random_vec(n, 163);
                   const Vec scale = random_vec(ch, 164, 0.5f, 1.5f), shift = random_vec(ch, 165);
                   const Tensor st = up(be, scale, {ch}), ht = up(be, shift, {ch}),
                                bt = up(be, b, {n});
                   Tensor y = be.empty({batch, len, n});
                   const InputTransform t =
                       in_place ? InputTransform{} : InputTransform{&st, &ht, Act::gelu};
                   be.conv1d(x.t, k, be.prepare_weight(w, n, k * ch, Precision::f16), y, {&bt}, t);
                   return std::vector<Check>{
                       {"y", be.download(y),
                        conv1d_ref(x.v, batch, len, ch, k, w, n, in_place ? nullptr : &scale,
                                   in_place ? nullptr : &shift, in_place ? Act::none : Act::gelu,
                                   &b, Act::none, nullptr),
                        Precision::f16}};
                 }});
  // The pools reading those f16 sums and writing fp32 (the last, into the transformer) or f16
  // (the others, for the next conv block): a portable kernel, PoCL too; logits fp32.
  for (const bool half_out : {false, true})
    c.push_back({Op::attention_pool, half_out ? "f16_in_out" : "f16_in_f32_out",
                 needs_precision(Precision::f16), [half_out](Backend& be) {
                   const int64_t batch = 2, len = 10, ch = 64;
                   const HalfRows x = half_rows(be, {batch, len, ch}, 141);
                   const Vec lg = random_vec(batch * len * ch, 144, -5, 5);
                   Tensor y = be.empty({batch, len / 2, ch}, half_out ? DType::f16 : DType::f32);
                   be.attention_pool(x.t, up(be, lg, {batch, len, ch}), y);
                   const DVec wts = softmax_ref(lg, batch * len / 2, 2, ch);
                   DVec want(y.numel());
                   for (int64_t p = 0; p < batch * len / 2; ++p)
                     for (int64_t i = 0; i < ch; ++i) {
                       const int64_t a = 2 * p * ch + i, b = a + ch;
                       want[p * ch + i] = x.v[a] * wts[a] + x.v[b] * wts[b];
                     }
                   return std::vector<Check>{
                       {"y", be.download(y), want, half_out ? Precision::f16 : Precision::f32}};
                 }});
  // The tower pools in that stage: f16 in and out, the next conv block's BN + GELU applied before
  // the store, as the conv then reads the output in place (64 channels: the eight-channel kernel).
  c.push_back(
      {Op::attention_pool, "f16_in_out_bn_gelu", needs_precision(Precision::f16), [](Backend& be) {
         const int64_t batch = 2, len = 10, ch = 64;
         const HalfRows x = half_rows(be, {batch, len, ch}, 145);
         const Vec lg = random_vec(batch * len * ch, 146, -5, 5);
         const Vec scale = random_vec(ch, 147, 0.5f, 1.5f), shift = random_vec(ch, 148);
         const Tensor st = up(be, scale, {ch}), ht = up(be, shift, {ch});
         Tensor y = be.empty({batch, len / 2, ch}, DType::f16);
         be.attention_pool(x.t, up(be, lg, {batch, len, ch}), y, {&st, &ht, Act::gelu});
         const DVec wts = softmax_ref(lg, batch * len / 2, 2, ch);
         DVec want(y.numel());
         for (int64_t p = 0; p < batch * len / 2; ++p)
           for (int64_t i = 0; i < ch; ++i) {
             const int64_t a = 2 * p * ch + i, b = a + ch;
             want[p * ch + i] =
                 act_ref(Act::gelu, (x.v[a] * wts[a] + x.v[b] * wts[b]) * scale[i] + shift[i]);
           }
         return std::vector<Check>{{"y", be.download(y), want, Precision::f16}};
       }});
  // Enformer's relative attention in its half-activation stage: K, V and rel_k written in f16
  // by their producers and read in place, the context written in f16 (Q and the biases fp32).
  // n = 77: a 64-query block and a partial one; 200: several key tiles, the last partial.
  for (const auto& [n_keys, name] :
       {std::pair<int64_t, const char*>{77, "f16_kvr_f16_out"}, {200, "f16_kvr_f16_out_n200"}})
    c.push_back(
        {Op::rel_attention_fused, name, needs_tensor_core_f16, [n = n_keys](Backend& be) {
           RelAttentionInputs in({2, n, 2, 64, 48});
           in.s.precision = Precision::f16;
           const auto& s = in.s;
           const int64_t hk = s.heads * s.dk, hv = s.heads * s.dv;
           // Q's products are unscaled here (Enformer folds dk^-1/2 into Wq): small Q keeps
           // the logits in the range the model's are.
           in.q = random_vec(s.batch * n * hk, 121, -0.15f, 0.15f);
           const HalfRows k = half_rows(be, {s.batch, n, hk}, 122),
                          v = half_rows(be, {s.batch, n, hv}, 125),
                          r = half_rows(be, {2 * n - 1, hk}, 128);
           in.k = k.v, in.v = v.v, in.rel_k = r.v;
           Tensor out = be.empty({s.batch, n, hv}, DType::f16);
           be.rel_attention_fused(s, up(be, in.q, {s.batch, n, hk}), k.t, v.t, r.t,
                                  up(be, in.content_bias, {hk}), up(be, in.pos_bias, {hk}), out);
           return std::vector<Check>{{"out", be.download(out), in.reference(), Precision::f16}};
         }});
}

}  // namespace sb::testing
