// Op cases: normalization and softmax, and the reductions.
#include <gtest/gtest.h>

#include "tests/ops/op_case.h"

namespace sb::testing {
namespace {

// Rows of `cols` values around a mean of 100 (a large mean stresses one-pass statistics):
// 2 x 5 rows, fewer and more columns than an OpenCL work-group has items.
struct Rows {
  int64_t cols;
  Vec x, residual, gamma, beta;
  explicit Rows(int64_t c)
      : cols(c),
        x(random_vec(10 * c, 60, 97, 105)),
        residual(random_vec(10 * c, 61)),
        gamma(random_vec(c, 62, 0.5f, 1.5f)),
        beta(random_vec(c, 63)) {}
  std::vector<int64_t> shape() const { return {2, 5, cols}; }
  Vec summed() const {
    Vec s(x.size());
    for (size_t i = 0; i < x.size(); ++i) s[i] = x[i] + residual[i];
    return s;
  }
};

constexpr float kEps = 1e-5f;
constexpr double kNormTol = 1e-4;  // the statistics of a mean-100 row in fp32

std::vector<OpCase> norm_cases() {
  std::vector<OpCase> c;
  // 256 and 264: whole 8-column groups (the 16-byte kernels on OpenCL), 32 and 33 of them, so
  // every lane holds one, or lane 0 two
  for (int64_t cols : {37, 256, 264, 300}) {
    c.push_back(
        {Op::layernorm, "cols_" + std::to_string(cols) + "_in_place", {}, [cols](Backend& be) {
           const Rows r(cols);
           Tensor x = up(be, r.x, r.shape());
           be.layernorm(x, up(be, r.gamma, {cols}), up(be, r.beta, {cols}), kEps, x);
           return std::vector<Check>{{"y", be.download(x),
                                      layernorm_ref(r.x, r.gamma, r.beta, cols, kEps),
                                      Precision::f32, kNormTol}};
         }});
    if (cols == 256 || cols == 264) continue;
    c.push_back({Op::normalize_rows, "cols_" + std::to_string(cols), {}, [cols](Backend& be) {
                   const Rows r(cols);
                   DVec mean, var;
                   moments_ref(r.x, cols, mean, var);
                   const Tensor x = up(be, r.x, r.shape());
                   Tensor y = be.empty(x.shape());
                   be.normalize_rows(x, up(be, Vec(mean.begin(), mean.end()), {10}),
                                     up(be, Vec(var.begin(), var.end()), {10}),
                                     up(be, r.gamma, {cols}), up(be, r.beta, {cols}), kEps, y);
                   return std::vector<Check>{{"y", be.download(y),
                                              layernorm_ref(r.x, r.gamma, r.beta, cols, kEps),
                                              Precision::f32, kNormTol}};
                 }});
  }
  // 300: several columns per item; 1100: wider than OpenCL keeps a row in registers; the
  // 16-byte kernels: 40 (5 of 32 lanes hold a group), 256 (every lane one), 264 and 512 (one or
  // two groups a lane, two kept), 1024 (the widest, four).
  for (int64_t cols : {37, 40, 256, 264, 300, 512, 1024, 1100}) {
    for (int alias = 0; alias < 3; ++alias) {
      if (cols != 300 && cols != 264 && alias != 0) continue;  // aliasing once a kernel
      static const char* const names[] = {"", "_into_x", "_into_residual"};
      c.push_back(
          {Op::add_layernorm,
           "cols_" + std::to_string(cols) + names[alias],
           {},
           [cols, alias](Backend& be) {
             const Rows r(cols);
             Tensor x = up(be, r.x, r.shape()), res = up(be, r.residual, r.shape());
             Tensor y = alias == 1 ? x : alias == 2 ? res : be.empty(r.shape());
             be.add_layernorm(x, res, up(be, r.gamma, {cols}), up(be, r.beta, {cols}), kEps, y);
             return std::vector<Check>{{"y", be.download(y),
                                        layernorm_ref(r.summed(), r.gamma, r.beta, cols, kEps),
                                        Precision::f32, kNormTol}};
           }});
    }
  }
  for (int64_t cols : {19, 300}) {
    c.push_back({Op::softmax_rows, "cols_" + std::to_string(cols), {}, [cols](Backend& be) {
                   Vec x = random_vec(6 * cols, 70, -20, 20);
                   x[3] = 1000.0f;  // would overflow exp without the max subtracted
                   Tensor t = up(be, x, {2, 3, cols});
                   be.softmax_rows(t);
                   return std::vector<Check>{{"y", be.download(t), softmax_ref(x, 6, cols, 1)}};
                 }});
  }
  c.push_back({Op::softmax_axis1, "pairs", {}, [](Backend& be) {
                 Vec x = random_vec(6 * 2 * 5, 71, -5, 5);
                 x[0] = 200.0f;  // one weight saturates to exactly 1
                 Tensor y = be.empty({6, 2, 5});
                 be.softmax_axis1(up(be, x, {6, 2, 5}), y);
                 return std::vector<Check>{{"y", be.download(y), softmax_ref(x, 6, 2, 5)}};
               }});
  c.push_back({Op::softmax_axis1, "triples_in_place", {}, [](Backend& be) {
                 const Vec x = random_vec(4 * 3 * 7, 72, -5, 5);
                 Tensor t = up(be, x, {4, 3, 7});
                 be.softmax_axis1(t, t);
                 return std::vector<Check>{{"y", be.download(t), softmax_ref(x, 4, 3, 7)}};
               }});
  return c;
}

// n 40 and inner 37 take OpenCL's work-group kernel (sum_axis1_split: 16 or more rows, a partial
// block of 32 columns, two outer items); n 3 its item per column.
std::vector<Check> run_sum_axis1(Backend& be, bool weighted, bool long_axis = false) {
  const int64_t outer = long_axis ? 2 : 6, n = long_axis ? 40 : 3, inner = long_axis ? 37 : 5;
  const Vec x = random_vec(outer * n * inner, 80), w = random_vec(x.size(), 81, 0, 1);
  const Tensor wt = up(be, w, {outer, n, inner});
  Tensor y = be.empty({outer, inner});
  be.sum_axis1(up(be, x, {outer, n, inner}), weighted ? &wt : nullptr, y);
  DVec want(outer * inner, 0.0);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t at = (o * n + j) * inner + i;
        want[o * inner + i] += double(x[at]) * (weighted ? w[at] : 1.0);
      }
  return {{"y", be.download(y), want}};
}

// masked_mean's reference: each item's weighted mean over its sequence, 0 where no weight is set.
DVec masked_mean_reference(const Vec& x, const Vec& w, int64_t batch, int64_t seq, int64_t d) {
  DVec want(batch * d, 0.0);
  for (int64_t b = 0; b < batch; ++b) {
    double total = 0;
    for (int64_t s = 0; s < seq; ++s) total += w[b * seq + s];
    for (int64_t ch = 0; ch < d && total > 0; ++ch) {
      for (int64_t s = 0; s < seq; ++s)
        want[b * d + ch] += w[b * seq + s] * x[(b * seq + s) * d + ch];
      want[b * d + ch] /= total;
    }
  }
  return want;
}
std::vector<OpCase> reduction_cases() {
  std::vector<OpCase> c;
  for (int64_t cols : {37, 300}) {
    c.push_back({Op::row_moments, "cols_" + std::to_string(cols), {}, [cols](Backend& be) {
                   const Rows r(cols);
                   Tensor mean = be.empty({10}), var = be.empty({10});
                   be.row_moments(up(be, r.x, r.shape()), mean, var);
                   DVec want_mean, want_var;
                   moments_ref(r.x, cols, want_mean, want_var);
                   return std::vector<Check>{{"mean", be.download(mean), want_mean},
                                             {"var", be.download(var), want_var}};
                 }});
  }
  c.push_back({Op::sum_axis1, "plain", {}, [](Backend& be) { return run_sum_axis1(be, false); }});
  c.push_back({Op::sum_axis1, "weighted", {}, [](Backend& be) { return run_sum_axis1(be, true); }});
  c.push_back(
      {Op::sum_axis1, "long_axis", {}, [](Backend& be) { return run_sum_axis1(be, false, true); }});
  c.push_back({Op::sum_axis1, "long_axis_weighted", {}, [](Backend& be) {
                 return run_sum_axis1(be, true, true);
               }});
  c.push_back({Op::masked_mean, "padding_and_an_empty_item", {}, [](Backend& be) {
                 const int64_t batch = 3, seq = 5, d = 9;
                 const Vec x = random_vec(batch * seq * d, 10);
                 const Vec w{1, 1,   1, 0, 0,   // padded item
                             0, 0,   0, 0, 0,   // no tokens at all: 0
                             1, 0.5, 1, 1, 2};  // fractional weights
                 Tensor y = be.empty({batch, d});
                 be.masked_mean(up(be, x, {batch, seq, d}), up(be, w, {batch, seq}), y);
                 return std::vector<Check>{
                     {"y", be.download(y), masked_mean_reference(x, w, batch, seq, d)}};
               }});
  // A width of whole float4s (the work-group-per-32-channels kernel on OpenCL): 9 of them, so an
  // item's second group is mostly idle, and a sequence longer than the 32 items across it.
  c.push_back({Op::masked_mean, "quads_padding_and_an_empty_item", {}, [](Backend& be) {
                 const int64_t batch = 3, seq = 70, d = 36;
                 const Vec x = random_vec(batch * seq * d, 11);
                 Vec w = random_vec(batch * seq, 12, 0.5f, 2.0f);
                 for (int64_t s = 40; s < seq; ++s) w[s] = 0;       // item 0: padded
                 for (int64_t s = 0; s < seq; ++s) w[seq + s] = 0;  // item 1: no tokens
                 Tensor y = be.empty({batch, d});
                 be.masked_mean(up(be, x, {batch, seq, d}), up(be, w, {batch, seq}), y);
                 return std::vector<Check>{
                     {"y", be.download(y), masked_mean_reference(x, w, batch, seq, d)}};
               }});
  return c;
}

}  // namespace

void add_norm_and_reduction_cases(std::vector<OpCase>& cases) {
  for (auto* group : {&norm_cases, &reduction_cases})
    for (OpCase& c : group()) cases.push_back(std::move(c));
}

}  // namespace sb::testing
