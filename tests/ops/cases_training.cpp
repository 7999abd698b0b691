// Op cases: the training ops. Transfers into existing tensors, column ops, the backward ops and
// the dropout mask against double references, every backward op also against central finite
// differences of its forward op run on the same backend (gradient_check.h); batched GEMMs with
// transposed A, accumulation (beta) and bf16. The losses and AdamW: cases_losses_adamw.cpp, in
// this group's order (the pooled buffers a case meets depend on the cases before it).
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "models/ops/dropout_hash.h"
#include "tests/ops/gradient_check.h"
#include "tests/ops/op_case.h"

namespace sb::testing {
namespace {

// The hash is pinned to the definition both backends implement (values computed independently).
static_assert(dropout_key32(0x0123456789abcdefull, 42) == 0x46ab856du);
static_assert(dropout_threshold(0.25f) == 4194304u);
static_assert(!dropout_keep(0x46ab856du, 4194304u, 0) && dropout_keep(0x46ab856du, 4194304u, 1) &&
              !dropout_keep(0x46ab856du, 4194304u, 7));

int64_t size_of(const Vec& v) {
  return static_cast<int64_t>(v.size());
}

// --- transfers ---------------------------------------------------------------------------

std::vector<OpCase> transfer_cases() {
  std::vector<OpCase> c;
  c.push_back({Op::write, "blocking_and_queued", {}, [](Backend& be) {
                 const Vec a = random_vec(12, 200), b = random_vec(12, 201);
                 Tensor t = be.empty({3, 4}), u = be.empty({12});
                 be.write(a, t);
                 be.write(b, u, false);
                 be.synchronize();
                 return checks({{"blocking", be.download(t), widen(a), Precision::f32, 1e-12},
                                {"queued", be.download(u), widen(b), Precision::f32, 1e-12}});
               }});
  c.push_back({Op::write_ids, "range_recorded_for_embedding", {}, [](Backend& be) {
                 Tensor ids = be.upload_ids(std::vector<int32_t>{0, 0, 0, 0}, {1, 4});
                 const std::vector<int32_t> values{3, 0, 5, 2};
                 be.write_ids(values, ids);
                 be.synchronize();
                 const auto& r = ids.storage()->ids;
                 EXPECT_TRUE(r && r->lo == 0 && r->lo_at == 1 && r->hi == 5 && r->hi_at == 2);
                 const Vec table = random_vec(6 * 3, 202);
                 Tensor y = be.empty({1, 4, 3});
                 be.embedding(up(be, table, {6, 3}), ids, nullptr, y);
                 DVec want;
                 for (int32_t id : values)
                   for (int d = 0; d < 3; ++d) want.push_back(table[id * 3 + d]);
                 return checks({{"y", be.download(y), want}});
               }});
  c.push_back({Op::fill, "value", {}, [](Backend& be) {
                 Tensor y = up(be, random_vec(37, 203), {37});
                 be.fill(y, -1.5f);
                 return checks({{"y", be.download(y), DVec(37, -1.5)}});
               }});
  return c;
}

// --- columns -----------------------------------------------------------------------------

// a [2, 3, 2], b [6, 1] (the same 6 rows in another shape), e [6, 0], d [2, 3, 3] -> y [6, 6].
struct ConcatInputs {
  Vec a = random_vec(12, 210), b = random_vec(6, 211), d = random_vec(18, 212);
  static constexpr int64_t rows = 6, width = 6;
  std::vector<Tensor> tensors(Backend& be, const Vec& b_values) const {
    return {up(be, a, {2, 3, 2}), up(be, b_values, {6, 1}), be.empty({6, 0}), up(be, d, {2, 3, 3})};
  }
  Vec run(Backend& be, const Vec& b_values) const {
    const std::vector<Tensor> ts = tensors(be, b_values);
    const Tensor* xs[] = {&ts[0], &ts[1], &ts[2], &ts[3]};
    Tensor y = be.empty({2, 3, width});
    be.concat_last(xs, y);
    return be.download(y);
  }
};

const std::vector<int64_t> kIndex{4, 0, 0, 2};  // a repeated index and an unused column

std::vector<OpCase> column_cases() {
  std::vector<OpCase> c;
  c.push_back({Op::concat_last, "mixed_shapes_and_an_empty_input", {}, [](Backend& be) {
                 const ConcatInputs in;
                 DVec want;
                 for (int64_t r = 0; r < in.rows; ++r) {
                   for (int j = 0; j < 2; ++j) want.push_back(in.a[r * 2 + j]);
                   want.push_back(in.b[r]);
                   for (int j = 0; j < 3; ++j) want.push_back(in.d[r * 3 + j]);
                 }
                 return checks({{"y", in.run(be, in.b), want}});
               }});
  c.push_back({Op::slice_last, "middle_columns", {}, [](Backend& be) {
                 const Vec x = random_vec(4 * 7, 213);
                 Tensor y = be.empty({4, 3});
                 be.slice_last(up(be, x, {4, 7}), 2, y);
                 DVec want;
                 for (int r = 0; r < 4; ++r)
                   for (int j = 2; j < 5; ++j) want.push_back(x[r * 7 + j]);
                 return checks({{"y", be.download(y), want}});
               }});
  // slice_last is concat_last's backward: the slice of dy at b's columns is d(dy . y)/db.
  c.push_back({Op::slice_last, "gradient_of_concat_last", {}, [](Backend& be) {
                 const ConcatInputs in;
                 const Vec dy = random_vec(in.rows * in.width, 214);
                 Tensor db = be.empty({6, 1});
                 be.slice_last(up(be, dy, {in.rows, in.width}), 2, db);
                 const DVec numeric =
                     numeric_gradient(in.b, [&](const Vec& b) { return dot(dy, in.run(be, b)); });
                 return checks({gradient_matches("db", be.download(db), numeric)});
               }});
  c.push_back({Op::gather_cols, "repeated_index", {}, [](Backend& be) {
                 const Vec x = random_vec(3 * 5, 215);
                 Tensor y = be.empty({3, 4});
                 be.gather_cols(up(be, x, {3, 5}), kIndex, y);
                 DVec want;
                 for (int r = 0; r < 3; ++r)
                   for (int64_t i : kIndex) want.push_back(x[r * 5 + i]);
                 return checks({{"y", be.download(y), want}});
               }});
  c.push_back({Op::scatter_add_cols, "repeated_index_accumulates", {}, [](Backend& be) {
                 const Vec x0 = random_vec(3 * 5, 216), y = random_vec(3 * 4, 217);
                 Tensor x = up(be, x0, {3, 5});
                 be.scatter_add_cols(up(be, y, {3, 4}), kIndex, x);
                 DVec want = widen(x0);
                 for (int r = 0; r < 3; ++r)
                   for (size_t j = 0; j < kIndex.size(); ++j)
                     want[r * 5 + kIndex[j]] += y[r * 4 + j];
                 return checks({{"x", be.download(x), want}});
               }});
  c.push_back({Op::scatter_add_cols, "gradient_of_gather_cols", {}, [](Backend& be) {
                 const Vec x = random_vec(3 * 5, 218), dy = random_vec(3 * 4, 219);
                 Tensor dx = be.empty({3, 5});
                 be.fill(dx, 0.0f);
                 be.scatter_add_cols(up(be, dy, {3, 4}), kIndex, dx);
                 const DVec numeric = numeric_gradient(x, [&](const Vec& xv) {
                   Tensor y = be.empty({3, 4});
                   be.gather_cols(up(be, xv, {3, 5}), kIndex, y);
                   return dot(dy, be.download(y));
                 });
                 return checks({gradient_matches("dx", be.download(dx), numeric)});
               }});
  return c;
}

// --- backward ops ------------------------------------------------------------------------

const std::vector<int32_t> kIds{3, 0, 3, 1, 4, 3, 0, 2};  // [2, 4], repeats

std::vector<OpCase> embedding_backward_cases() {
  std::vector<OpCase> c;
  c.push_back({Op::embedding_backward, "repeated_ids_accumulate", {}, [](Backend& be) {
                 const Vec t0 = random_vec(5 * 3, 220), dy = random_vec(8 * 3, 221);
                 Tensor dtable = up(be, t0, {5, 3});
                 be.embedding_backward(up(be, dy, {2, 4, 3}), be.upload_ids(kIds, {2, 4}), dtable);
                 DVec want = widen(t0);
                 for (size_t t = 0; t < kIds.size(); ++t)
                   for (int d = 0; d < 3; ++d) want[kIds[t] * 3 + d] += dy[t * 3 + d];
                 return checks({{"dtable", be.download(dtable), want}});
               }});
  c.push_back({Op::embedding_backward, "gradient_of_embedding", {}, [](Backend& be) {
                 const Vec table = random_vec(5 * 3, 222), dy = random_vec(8 * 3, 223);
                 const Tensor ids = be.upload_ids(kIds, {2, 4});
                 Tensor dtable = be.empty({5, 3});
                 be.fill(dtable, 0.0f);
                 be.embedding_backward(up(be, dy, {2, 4, 3}), ids, dtable);
                 const DVec numeric = numeric_gradient(table, [&](const Vec& tv) {
                   Tensor y = be.empty({2, 4, 3});
                   be.embedding(up(be, tv, {5, 3}), ids, nullptr, y);
                   return dot(dy, be.download(y));
                 });
                 return checks({gradient_matches("dtable", be.download(dtable), numeric)});
               }});
  c.push_back(
      {Op::embedding_backward, "same_bits_every_call", {}, [](Backend& be) {
         const int64_t tokens = shape(256, 40);
         std::vector<int32_t> ids(4 * tokens);
         for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(i * 7 % 5);
         const Vec dy = random_vec(ids.size() * 33, 224);
         const Tensor idt = be.upload_ids(ids, {4, tokens}), dyt = up(be, dy, {4, tokens, 33});
         Vec first;
         for (int run = 0; run < 3; ++run) {
           Tensor dtable = be.empty({5, 33});
           be.fill(dtable, 0.0f);
           be.embedding_backward(dyt, idt, dtable);
           const Vec got = be.download(dtable);
           if (run == 0) first = got;
           EXPECT_EQ(got, first) << "run " << run;
         }
         DVec want(5 * 33, 0.0);
         for (size_t t = 0; t < ids.size(); ++t)
           for (int d = 0; d < 33; ++d) want[ids[t] * 33 + d] += dy[t * 33 + d];
         return checks({{"dtable", first, want, Precision::f32, 1e-4}});
       }});
  return c;
}

std::vector<OpCase> activation_backward_cases() {
  std::vector<OpCase> c;
  static const char* const names[] = {"none",     "relu",       "gelu",   "softplus",
                                      "gelu_erf", "leaky_relu", "sigmoid"};
  for (Act act : {Act::none, Act::relu, Act::gelu, Act::softplus, Act::gelu_erf, Act::leaky_relu,
                  Act::sigmoid}) {
    const std::string name = names[static_cast<int>(act)];
    // dx written over dy (in place) against the analytic derivative.
    c.push_back({Op::activation_backward, name + "_in_place", {}, [act](Backend& be) {
                   const Vec x = away_from_zero(random_vec(300, 230, -4, 4)),
                             dy = random_vec(300, 231);
                   Tensor dyt = up(be, dy, {3, 100});
                   be.activation_backward(up(be, x, {3, 100}), dyt, act, dyt);
                   DVec want(x.size());
                   for (size_t i = 0; i < x.size(); ++i) want[i] = dy[i] * act_grad_ref(act, x[i]);
                   return checks({{"dx", be.download(dyt), want}});
                 }});
    c.push_back({Op::activation_backward, name + "_gradient", {}, [act](Backend& be) {
                   const Vec x = away_from_zero(random_vec(12, 232, -3, 3)),
                             dy = random_vec(12, 233);
                   Tensor dx = be.empty({12});
                   be.activation_backward(up(be, x, {12}), up(be, dy, {12}), act, dx);
                   const DVec numeric = numeric_gradient(x, [&](const Vec& xv) {
                     Tensor y = be.empty({12});
                     be.activation(up(be, xv, {12}), act, y);
                     return dot(dy, be.download(y));
                   });
                   return checks({gradient_matches("dx", be.download(dx), numeric)});
                 }});
  }
  return c;
}

struct LayerNormInputs {
  int64_t rows, c;
  Vec x, gamma, beta, dy;
  LayerNormInputs(int64_t r, int64_t ch, unsigned seed)
      : rows(r),
        c(ch),
        x(random_vec(r * ch, seed, -2, 3)),
        gamma(random_vec(ch, seed + 1, 0.5, 1.5)),
        beta(random_vec(ch, seed + 2)),
        dy(random_vec(r * ch, seed + 3)) {}
  static constexpr float eps = 1e-5f;

  // dx, dgamma, dbeta in double.
  void reference(DVec& dx, DVec& dg, DVec& db) const {
    DVec mean, var;
    moments_ref(x, c, mean, var);
    dx.assign(x.size(), 0);
    dg.assign(c, 0);
    db.assign(c, 0);
    for (int64_t r = 0; r < rows; ++r) {
      const double rstd = 1 / std::sqrt(var[r] + eps);
      double m1 = 0, m2 = 0;
      for (int64_t i = 0; i < c; ++i) {
        const double xhat = (x[r * c + i] - mean[r]) * rstd, g = double(dy[r * c + i]) * gamma[i];
        m1 += g / c;
        m2 += g * xhat / c;
        dg[i] += dy[r * c + i] * xhat;
        db[i] += dy[r * c + i];
      }
      for (int64_t i = 0; i < c; ++i) {
        const double xhat = (x[r * c + i] - mean[r]) * rstd;
        dx[r * c + i] = rstd * (double(dy[r * c + i]) * gamma[i] - m1 - xhat * m2);
      }
    }
  }
};

std::vector<OpCase> layernorm_backward_cases() {
  std::vector<OpCase> c;
  // 70 channels: past the CPU's 64-column blocks; dx written over dy.
  c.push_back(
      {Op::layernorm_backward, "reference_dx_in_place", {}, [](Backend& be) {
         const LayerNormInputs in(shape(37, 10), 70, 240);
         Tensor dy = up(be, in.dy, {in.rows, in.c}), dg = be.empty({in.c}), db = be.empty({in.c});
         be.layernorm_backward(up(be, in.x, {in.rows, in.c}), up(be, in.gamma, {in.c}), in.eps, dy,
                               dy, dg, db);
         DVec dx, dgw, dbw;
         in.reference(dx, dgw, dbw);
         return checks({{"dx", be.download(dy), dx, Precision::f32, 1e-4},
                        {"dgamma", be.download(dg), dgw, Precision::f32, 1e-4},
                        {"dbeta", be.download(db), dbw, Precision::f32, 1e-4}});
       }});
  c.push_back(
      {Op::layernorm_backward, "gradient", {}, [](Backend& be) {
         const LayerNormInputs in(3, 6, 244);
         const int64_t rows = in.rows, ch = in.c;
         Tensor dx = be.empty({rows, ch}), dg = be.empty({ch}), db = be.empty({ch});
         be.layernorm_backward(up(be, in.x, {rows, ch}), up(be, in.gamma, {ch}), in.eps,
                               up(be, in.dy, {rows, ch}), dx, dg, db);
         auto f = [&](const Vec& x, const Vec& g, const Vec& b) {
           Tensor y = be.empty({rows, ch});
           be.layernorm(up(be, x, {rows, ch}), up(be, g, {ch}), up(be, b, {ch}), in.eps, y);
           return dot(in.dy, be.download(y));
         };
         return checks(
             {gradient_matches(
                  "dx", be.download(dx),
                  numeric_gradient(in.x, [&](const Vec& v) { return f(v, in.gamma, in.beta); })),
              gradient_matches(
                  "dgamma", be.download(dg),
                  numeric_gradient(in.gamma, [&](const Vec& v) { return f(in.x, v, in.beta); })),
              gradient_matches(
                  "dbeta", be.download(db),
                  numeric_gradient(in.beta, [&](const Vec& v) { return f(in.x, in.gamma, v); }))});
       }});
  return c;
}

std::vector<OpCase> softmax_backward_cases() {
  std::vector<OpCase> c;
  c.push_back({Op::softmax_rows_backward, "reference", {}, [](Backend& be) {
                 const int64_t rows = 5, ch = 9;
                 const Vec x = random_vec(rows * ch, 250, -3, 3), dy = random_vec(rows * ch, 251);
                 const DVec yd = softmax_ref(x, rows, ch, 1);
                 const Vec y(yd.begin(), yd.end());
                 Tensor dx = be.empty({rows, ch});
                 be.softmax_rows_backward(up(be, y, {rows, ch}), up(be, dy, {rows, ch}), dx);
                 DVec want(y.size());
                 for (int64_t r = 0; r < rows; ++r) {
                   double s = 0;
                   for (int64_t i = 0; i < ch; ++i) s += double(dy[r * ch + i]) * y[r * ch + i];
                   for (int64_t i = 0; i < ch; ++i)
                     want[r * ch + i] = double(y[r * ch + i]) * (dy[r * ch + i] - s);
                 }
                 return checks({{"dx", be.download(dx), want}});
               }});
  c.push_back({Op::softmax_rows_backward, "gradient_in_place", {}, [](Backend& be) {
                 const int64_t rows = 3, ch = 5;
                 const Vec x = random_vec(rows * ch, 252, -2, 2), dy = random_vec(rows * ch, 253);
                 Tensor y = up(be, x, {rows, ch});
                 be.softmax_rows(y);
                 Tensor dyt = up(be, dy, {rows, ch});
                 be.softmax_rows_backward(y, dyt, dyt);
                 const DVec numeric = numeric_gradient(x, [&](const Vec& xv) {
                   Tensor t = up(be, xv, {rows, ch});
                   be.softmax_rows(t);
                   return dot(dy, be.download(t));
                 });
                 return checks({gradient_matches("dx", be.download(dyt), numeric)});
               }});
  return c;
}

// --- dropout -----------------------------------------------------------------------------

DVec dropout_ref(const Vec& x, const DropoutKey& key) {
  const uint32_t k = dropout_key32(key), threshold = dropout_threshold(key.p);
  DVec y(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    y[i] = dropout_keep(k, threshold, i) ? double(x[i]) * dropout_scale(key.p) : 0.0;
  return y;
}

std::vector<OpCase> dropout_cases() {
  std::vector<OpCase> c;
  c.push_back({Op::dropout, "mask_of_the_shared_hash", {}, [](Backend& be) {
                 const Vec x = random_vec(3 * 1000, 260, 0.5, 1.5);  // never 0
                 const DropoutKey key{0.25f, 0x0123456789abcdefull, 42};
                 Tensor y = be.empty({3, 1000});
                 be.dropout(up(be, x, {3, 1000}), key, y);
                 const Vec got = be.download(y);
                 const auto kept =
                     std::count_if(got.begin(), got.end(), [](float v) { return v != 0; });
                 EXPECT_NEAR(double(kept) / got.size(), 0.75, 0.03);
                 // Another stream draws another mask.
                 Tensor y2 = be.empty({3, 1000});
                 be.dropout(up(be, x, {3, 1000}), DropoutKey{0.25f, key.seed, 43}, y2);
                 const Vec got2 = be.download(y2);
                 int differ = 0;
                 for (size_t i = 0; i < got.size(); ++i) differ += (got[i] == 0) != (got2[i] == 0);
                 EXPECT_GT(differ, 300);
                 return checks({{"y", got, dropout_ref(x, key)}});
               }});
  c.push_back({Op::dropout, "p0_copies", {}, [](Backend& be) {
                 const Vec x = random_vec(100, 261);
                 Tensor y = be.empty({100});
                 be.dropout(up(be, x, {100}), DropoutKey{0.f, 1, 2}, y);
                 return checks({{"y", be.download(y), widen(x), Precision::f32, 1e-12}});
               }});
  // The backward is the same op on the gradient, with the same key (here in place).
  c.push_back({Op::dropout, "gradient_in_place", {}, [](Backend& be) {
                 const Vec x = random_vec(16, 262), dy = random_vec(16, 263);
                 const DropoutKey key{0.5f, 7, 99};
                 Tensor dyt = up(be, dy, {16});
                 be.dropout(dyt, key, dyt);
                 const DVec numeric = numeric_gradient(x, [&](const Vec& xv) {
                   Tensor y = be.empty({16});
                   be.dropout(up(be, xv, {16}), key, y);
                   return dot(dy, be.download(y));
                 });
                 return checks({gradient_matches("dx", be.download(dyt), numeric)});
               }});
  return c;
}

// The fused forms (dfm35): against double references and, exactly, against the two ops they
// replace on the same backend (the same float operations). 1,000 elements a row: more than one
// work-group of the OpenCL kernels, and a tail.
std::vector<OpCase> fused_dropout_cases() {
  std::vector<OpCase> c;
  for (Act act : {Act::relu, Act::gelu_erf}) {
    const std::string name = act == Act::relu ? "relu" : "gelu_erf";
    c.push_back({Op::activation_dropout, name + "_in_place", {}, [act](Backend& be) {
                   const Vec x = away_from_zero(random_vec(3 * 1001, 264, -3, 3));
                   const DropoutKey key{0.1f, 0x0123456789abcdefull, 44};
                   Tensor y = up(be, x, {3, 1001});
                   be.activation_dropout(y, act, key, y);
                   Tensor a = be.empty({3, 1001}), two = be.empty({3, 1001});
                   be.activation(up(be, x, {3, 1001}), act, a);
                   be.dropout(a, key, two);
                   Vec ax(x.size());
                   for (size_t i = 0; i < x.size(); ++i)
                     ax[i] = static_cast<float>(act_ref(act, x[i]));
                   const Vec got = be.download(y);
                   return checks(
                       {{"y", got, dropout_ref(ax, key)},
                        {"y as two passes", got, widen(be.download(two)), Precision::f32, 1e-30}});
                 }});
    c.push_back({Op::dropout_activation_backward, name + "_in_place", {}, [act](Backend& be) {
                   const Vec x = away_from_zero(random_vec(3 * 1001, 265, -3, 3)),
                             dy = random_vec(3 * 1001, 266);
                   const DropoutKey key{0.1f, 0x0123456789abcdefull, 45};
                   const Tensor xt = up(be, x, {3, 1001});
                   Tensor dx = up(be, dy, {3, 1001});
                   be.dropout_activation_backward(xt, dx, act, key, dx);
                   Tensor two = up(be, dy, {3, 1001});
                   be.dropout(two, key, two);
                   be.activation_backward(xt, two, act, two);
                   const DVec masked = dropout_ref(dy, key);
                   DVec want(x.size());
                   for (size_t i = 0; i < x.size(); ++i)
                     want[i] = masked[i] * act_grad_ref(act, x[i]);
                   const Vec got = be.download(dx);
                   return checks(
                       {{"dx", got, want},
                        {"dx as two passes", got, widen(be.download(two)), Precision::f32, 1e-30}});
                 }});
  }
  // The gradient of activation_dropout is dropout_activation_backward under the same key.
  c.push_back({Op::dropout_activation_backward, "gradient", {}, [](Backend& be) {
                 const Vec x = away_from_zero(random_vec(16, 267, -3, 3)), dy = random_vec(16, 268);
                 const DropoutKey key{0.5f, 7, 98};
                 Tensor dx = be.empty({16});
                 be.dropout_activation_backward(up(be, x, {16}), up(be, dy, {16}), Act::gelu_erf,
                                                key, dx);
                 const DVec numeric = numeric_gradient(x, [&](const Vec& xv) {
                   Tensor y = be.empty({16});
                   be.activation_dropout(up(be, xv, {16}), Act::gelu_erf, key, y);
                   return dot(dy, be.download(y));
                 });
                 return checks({gradient_matches("dx", be.download(dx), numeric)});
               }});
  return c;
}

// --- GEMM: transposed A, accumulation, bf16 ----------------------------------------------

// Two items at offsets inside one buffer, leading dimensions wider than their rows. beta = 0:
// the items' C starts as NaN (never read); else C accumulates. C outside the items keeps its
// values. B's items lie in reverse order (offsets stepping by a negative amount) unless
// b_ascending; autotune times the backend's candidates first (on scratch: C accumulates once).
std::vector<Check> run_gemm(Backend& be, bool trans_a, bool trans_b, float alpha, float beta,
                            Precision p, bool autotune = false, bool b_ascending = false,
                            int64_t k = 6) {
  const int64_t m = 5, n = 7, items = 2;
  const int64_t a_rows = trans_a ? k : m, a_cols = trans_a ? m : k;
  const int64_t b_rows = trans_b ? n : k, b_cols = trans_b ? k : n;
  GemmBatch g;
  g.m = m, g.n = n, g.k = k, g.trans_a = trans_a, g.trans_b = trans_b, g.alpha = alpha,
  g.beta = beta, g.precision = p, g.autotune = autotune;
  g.lda = a_cols + 2, g.ldb = b_cols + 1, g.ldc = n + 3;
  for (int64_t i = 0; i < items; ++i) {
    g.a_offsets.push_back(1 + i * a_rows * g.lda);
    g.b_offsets.push_back(2 + (b_ascending ? i : items - 1 - i) * b_rows * g.ldb);
    g.c_offsets.push_back(3 + i * m * g.ldc);
  }
  const Vec a = random_vec(4 + items * a_rows * g.lda, 310),
            b = random_vec(4 + items * b_rows * g.ldb, 311);
  Vec c0 = random_vec(4 + items * m * g.ldc, 312);
  DVec want = widen(c0);
  for (int64_t it = 0; it < items; ++it)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t q = 0; q < k; ++q) {
          const int64_t ao = g.a_offsets[it], bo = g.b_offsets[it];
          s += double(trans_a ? a[ao + q * g.lda + i] : a[ao + i * g.lda + q]) *
               (trans_b ? b[bo + j * g.ldb + q] : b[bo + q * g.ldb + j]);
        }
        const int64_t at = g.c_offsets[it] + i * g.ldc + j;
        want[at] = alpha * s + (beta == 0 ? 0.0 : beta * double(c0[at]));
        if (beta == 0) c0[at] = std::nanf("");
      }
  Tensor ct = up(be, c0, {size_of(c0)});
  be.gemm_batched(g, up(be, a, {size_of(a)}), up(be, b, {size_of(b)}), ct);
  return {{"C", be.download(ct), want, p}};
}

std::vector<OpCase> gemm_and_forward_cases() {
  std::vector<OpCase> c;
  c.push_back({Op::gemm_batched, "trans_a", {}, [](Backend& be) {
                 return run_gemm(be, true, false, 1.f, 0.f, Precision::f32);
               }});
  c.push_back({Op::gemm_batched, "beta_1_accumulates", {}, [](Backend& be) {
                 return run_gemm(be, false, false, 1.f, 1.f, Precision::f32);
               }});
  c.push_back({Op::gemm_batched, "trans_a_trans_b_beta_half", {}, [](Backend& be) {
                 return run_gemm(be, true, true, 0.5f, 0.5f, Precision::f32);
               }});
  // Autotune: every candidate timed on scratch, the chosen one writing C once. beta = 1 catches
  // a candidate timed in place (C would accumulate once per timed run); beta = 0 on NaN catches
  // one that reads C; evenly strided items (b_ascending) let strided-batch kernels compete.
  c.push_back({Op::gemm_batched, "autotune_beta_1_accumulates_once", {}, [](Backend& be) {
                 return run_gemm(be, false, true, 1.f, 1.f, Precision::f32, true, true);
               }});
  c.push_back({Op::gemm_batched, "autotune_trans_a_beta_0_reads_no_c", {}, [](Backend& be) {
                 return run_gemm(be, true, false, 0.5f, 0.f, Precision::f32, true, true);
               }});
  c.push_back(
      {Op::gemm_batched, "autotune_uneven_items_trans_a_trans_b_beta_half", {}, [](Backend& be) {
         return run_gemm(be, true, true, 0.5f, 0.5f, Precision::f32, true, false);
       }});
  // K 300: OpenCL's narrow products then share each element of C among 32 lanes
  // (gemm_batched_small_lanes), K not a multiple of them.
  c.push_back({Op::gemm_batched, "narrow_long_k_trans_b_beta_half", {}, [](Backend& be) {
                 return run_gemm(be, false, true, 1.f, 0.5f, Precision::f32, false, false, 300);
               }});
  c.push_back({Op::gemm_batched, "narrow_long_k_trans_a_beta_0", {}, [](Backend& be) {
                 return run_gemm(be, true, false, 0.5f, 0.f, Precision::f32, false, false, 300);
               }});
  c.push_back({Op::gemm_batched, "bf16_trans_a_beta_1", needs_precision(Precision::bf16),
               [](Backend& be) { return run_gemm(be, true, false, 1.f, 1.f, Precision::bf16); }});
  c.push_back({Op::gemm_batched, "bf16_trans_b", needs_precision(Precision::bf16),
               [](Backend& be) { return run_gemm(be, false, true, 0.5f, 0.f, Precision::bf16); }});
  c.push_back({Op::activation, "gelu_erf", {}, [](Backend& be) {
                 const Vec x = random_vec(200, 320, -5, 5);
                 Tensor y = be.empty({200});
                 be.activation(up(be, x, {200}), Act::gelu_erf, y);
                 DVec want(x.size());
                 for (size_t i = 0; i < x.size(); ++i) want[i] = act_ref(Act::gelu_erf, x[i]);
                 return checks({{"y", be.download(y), want}});
               }});
  c.push_back({Op::linear, "fp32_bias_gelu_erf", {}, [](Backend& be) {
                 const int64_t m = 20, n = 9, k = 11;
                 const Vec x = random_vec(m * k, 321), w = random_vec(n * k, 322),
                           bias = random_vec(n, 323);
                 const Weight wt = be.prepare_weight(w, n, k, Precision::f32);
                 const Tensor bt = up(be, bias, {n});
                 Tensor y = be.empty({m, n});
                 be.linear(up(be, x, {m, k}), wt, y, Epilogue{&bt, Act::gelu_erf, nullptr});
                 return checks({{"y", be.download(y),
                                 linear_ref(x, w, m, n, k, &bias, Act::gelu_erf, nullptr)}});
               }});
  return c;
}

}  // namespace

void add_training_cases(std::vector<OpCase>& cases) {
  for (auto* group :
       {&transfer_cases, &column_cases, &embedding_backward_cases, &activation_backward_cases,
        &layernorm_backward_cases, &softmax_backward_cases, &dropout_cases, &fused_dropout_cases,
        &loss_cases, &adamw_cases, &gemm_and_forward_cases})
    for (OpCase& c : group()) cases.push_back(std::move(c));
}

}  // namespace sb::testing
