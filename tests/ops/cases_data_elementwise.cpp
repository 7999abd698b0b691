// Op cases: data movement (im2col, row copies, the embedding gather) and elementwise ops.
#include <gtest/gtest.h>

#include "tests/ops/op_case.h"

namespace sb::testing {
namespace {

// c = 8: whole quads of channels (the OpenCL kernel's vector path); c = 3: element by element.
std::vector<Check> run_im2col(Backend& be, bool transformed, int64_t c = 3) {
  const int64_t batch = 2, len = 9;
  const int k = 5;
  const Vec x = random_vec(batch * len * c, 30), scale = random_vec(c, 31, 0.5f, 1.5f),
            shift = random_vec(c, 32);
  const Tensor st = up(be, scale, {c}), ht = up(be, shift, {c});
  InputTransform t;
  if (transformed) t = {&st, &ht, Act::gelu};
  Tensor cols = be.empty({batch * len, k * c});
  be.im2col(up(be, x, {batch, len, c}), k, cols, t);
  DVec want(cols.numel(), 0.0);  // padding of the transformed input stays zero
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t l = 0; l < len; ++l)
      for (int64_t j = 0; j < k; ++j)
        for (int64_t ch = 0; ch < c; ++ch) {
          const int64_t p = l + j - k / 2;
          if (p < 0 || p >= len) continue;
          const double v = x[(b * len + p) * c + ch];
          want[(b * len + l) * k * c + j * c + ch] =
              transformed ? act_ref(Act::gelu, v * scale[ch] + shift[ch]) : v;
        }
  return {{"cols", be.download(cols), want}};
}

std::vector<Check> run_embedding(Backend& be, bool with_rows) {
  const int64_t vocab = 11, d = 13, batch = 2, seq = 5, positions = 7;
  const Vec table = random_vec(vocab * d, 1), rows = random_vec(positions * d, 2);
  const std::vector<int32_t> ids{4, 0, 10, 4, 7, 1, 2, 9, 3, 10};
  const Tensor rt = up(be, rows, {positions, d});
  Tensor y = be.empty({batch, seq, d});
  be.embedding(up(be, table, {vocab, d}), be.upload_ids(ids, {batch, seq}),
               with_rows ? &rt : nullptr, y);
  DVec want(batch * seq * d);
  for (int64_t t = 0; t < batch * seq; ++t)
    for (int64_t c = 0; c < d; ++c)
      want[t * d + c] = double(table[ids[t] * d + c]) + (with_rows ? rows[(t % seq) * d + c] : 0);
  return {{"y", be.download(y), want}};
}

std::vector<OpCase> data_movement_cases() {
  std::vector<OpCase> c;
  c.push_back({Op::im2col, "plain", {}, [](Backend& be) { return run_im2col(be, false); }});
  c.push_back(
      {Op::im2col, "bn_gelu_transform", {}, [](Backend& be) { return run_im2col(be, true); }});
  c.push_back({Op::im2col, "channel_quads_bn_gelu", {}, [](Backend& be) {
                 return run_im2col(be, true, 8);
               }});
  c.push_back({Op::copy_rows, "middle_rows", {}, [](Backend& be) {
                 const Vec x = random_vec(2 * 9 * 4, 40);
                 Tensor y = be.empty({2, 5, 4});
                 be.copy_rows(up(be, x, {2, 9, 4}), 3, y);
                 DVec want;
                 for (int b = 0; b < 2; ++b)
                   for (int r = 0; r < 5; ++r)
                     for (int ch = 0; ch < 4; ++ch) want.push_back(x[(b * 9 + 3 + r) * 4 + ch]);
                 return std::vector<Check>{{"y", be.download(y), want}};
               }});
  c.push_back({Op::convert, "f32_to_f32", {}, [](Backend& be) {
                 const Vec x = random_vec(2 * 7 * 5, 41, -3, 3);
                 Tensor y = be.empty({2, 7, 5});
                 be.convert(up(be, x, {2, 7, 5}), y);
                 return std::vector<Check>{{"y", be.download(y), DVec(x.begin(), x.end())}};
               }});
  c.push_back({Op::embedding, "lookup", {}, [](Backend& be) { return run_embedding(be, false); }});
  c.push_back({Op::embedding, "lookup_plus_position_rows", {}, [](Backend& be) {
                 return run_embedding(be, true);
               }});
  return c;
}

// [2, 13, 7] inputs with extremes: softplus and sigmoid must neither overflow nor lose tails.
struct Inputs {
  static constexpr int64_t kChannels = 7, kTotal = 2 * 13 * kChannels;
  Vec a = random_vec(kTotal, 50, -4, 4), b = random_vec(kTotal, 51);
  Vec scale = random_vec(kChannels, 52), shift = random_vec(kChannels, 53);
  Inputs() { a[0] = 90.0f, a[1] = -30.0f; }
  Tensor tensor(Backend& be, const Vec& v) const { return up(be, v, {2, 13, kChannels}); }
};

// Fills want[i] = f(i) over the inputs' elements.
template <class F>
DVec each(F f) {
  DVec want(Inputs::kTotal);
  for (int64_t i = 0; i < Inputs::kTotal; ++i) want[i] = f(i);
  return want;
}

std::vector<OpCase> elementwise_cases() {
  std::vector<OpCase> c;
  struct Affine {
    const char* name;
    bool scale, shift, in_place;
  };
  for (Affine a : {Affine{"scale_shift", true, true, false},
                   {"scale", true, false, false},
                   {"shift_in_place", false, true, true}}) {
    c.push_back({Op::affine_channels, a.name, {}, [a](Backend& be) {
                   const Inputs in;
                   const Tensor s = up(be, in.scale, {Inputs::kChannels}),
                                t = up(be, in.shift, {Inputs::kChannels});
                   Tensor x = in.tensor(be, in.a);
                   Tensor y = a.in_place ? x : be.empty(x.shape());
                   be.affine_channels(x, a.scale ? &s : nullptr, a.shift ? &t : nullptr, y);
                   const int64_t ch = Inputs::kChannels;
                   return std::vector<Check>{{"y", be.download(y), each([&](int64_t i) {
                                                return double(in.a[i]) *
                                                           (a.scale ? in.scale[i % ch] : 1.0) +
                                                       (a.shift ? in.shift[i % ch] : 0.0);
                                              })}};
                 }});
  }
  c.push_back({Op::sigmoid_scaled, "alpha_1.702", {}, [](Backend& be) {
                 const Inputs in;
                 const Tensor x = in.tensor(be, in.a);
                 Tensor y = be.empty(x.shape());
                 be.sigmoid_scaled(x, 1.702f, y);
                 return std::vector<Check>{{"y", be.download(y), each([&](int64_t i) {
                                              return 1 / (1 + std::exp(-1.702 * in.a[i]));
                                            })}};
               }});
  c.push_back({Op::mul, "into_b", {}, [](Backend& be) {
                 const Inputs in;
                 Tensor b = in.tensor(be, in.b);
                 be.mul(in.tensor(be, in.a), b, b);
                 return std::vector<Check>{{"y", be.download(b), each([&](int64_t i) {
                                              return double(in.a[i]) * in.b[i];
                                            })}};
               }});
  c.push_back({Op::add, "into_a", {}, [](Backend& be) {
                 const Inputs in;
                 Tensor a = in.tensor(be, in.a);
                 be.add(a, in.tensor(be, in.b), a);
                 return std::vector<Check>{{"y", be.download(a), each([&](int64_t i) {
                                              return double(in.a[i]) + in.b[i];
                                            })}};
               }});
  for (Act act : {Act::none, Act::relu, Act::gelu, Act::softplus, Act::leaky_relu, Act::sigmoid}) {
    static const char* const names[] = {"none_in_place",   "relu",     "gelu_in_place",
                                        "softplus",        "gelu_erf", "leaky_relu",
                                        "sigmoid_in_place"};
    const bool in_place = act == Act::none || act == Act::gelu || act == Act::sigmoid;
    c.push_back({Op::activation, names[static_cast<int>(act)], {}, [act, in_place](Backend& be) {
                   const Inputs in;
                   Tensor x = in.tensor(be, in.a);
                   Tensor y = in_place ? x : be.empty(x.shape());
                   be.activation(x, act, y);
                   const Vec got = be.download(y);
                   // The tail log1p(e^-30) must survive, not round to 0.
                   if (act == Act::softplus) {
                     EXPECT_NEAR(got[1] / std::exp(-30.0), 1.0, 1e-4);
                   }
                   return std::vector<Check>{
                       {"y", got, each([&](int64_t i) { return act_ref(act, in.a[i]); })}};
                 }});
  }
  return c;
}

}  // namespace

void add_data_movement_and_elementwise_cases(std::vector<OpCase>& cases) {
  for (auto* group : {&data_movement_cases, &elementwise_cases})
    for (OpCase& c : group()) cases.push_back(std::move(c));
}

}  // namespace sb::testing
