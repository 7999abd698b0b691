// Op cases: memory (allocation, transfers, ids) and GEMMs (weights, linear with every epilogue
// at every precision, batched strided GEMMs).
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/ops/op_case.h"

namespace sb::testing {
namespace {

std::vector<OpCase> memory_cases() {
  std::vector<OpCase> c;
  c.push_back({Op::empty, "shaped_and_tracked", {}, [](Backend& be) {
                 const BackendMemory m = be.memory();
                 const AllocationTracker* t = m.device != nullptr ? m.device : m.host;
                 const uint64_t before = t->live();
                 {
                   const Tensor a = be.empty({3, 100});
                   const Tensor ids = be.empty({5}, DType::i32);
                   EXPECT_EQ(a.shape(), (std::vector<int64_t>{3, 100}));
                   EXPECT_EQ(ids.dtype(), DType::i32);
                   EXPECT_GE(t->live(), before + 3 * 100 * 4 + 5 * 4);
                 }
                 EXPECT_EQ(t->live(), before);
                 EXPECT_GE(t->peak(), before + 3 * 100 * 4 + 5 * 4);
                 return std::vector<Check>{};
               }});
  c.push_back({Op::upload, "round_trip", {}, [](Backend& be) {
                 const Vec v = random_vec(24, 1);
                 return std::vector<Check>{{"values", be.download(up(be, v, {2, 3, 4})), widen(v),
                                            Precision::f32, 1e-12}};
               }});
  c.push_back({Op::download, "empty_and_in_place_result", {}, [](Backend& be) {
                 EXPECT_TRUE(be.download(be.empty({0, 4})).empty());
                 const Vec v = random_vec(37, 2, -2, 2);
                 Tensor t = up(be, v, {37});
                 be.activation(t, Act::relu, t);
                 DVec want(v.size());
                 for (size_t i = 0; i < v.size(); ++i) want[i] = act_ref(Act::relu, v[i]);
                 return std::vector<Check>{{"relu", be.download(t), want}};
               }});
  c.push_back({Op::upload_ids, "i32_with_recorded_range", {}, [](Backend& be) {
                 const std::vector<int32_t> ids{3, 0, 7, 1, -2, 9};
                 const Tensor t = be.upload_ids(ids, {2, 3});
                 EXPECT_EQ(t.dtype(), DType::i32);
                 EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 3}));
                 const auto& r = t.storage()->ids;
                 EXPECT_TRUE(r && r->lo == -2 && r->lo_at == 4 && r->hi == 9 && r->hi_at == 5);
                 return std::vector<Check>{};
               }});
  return c;
}

enum class Res { none, separate, in_place };

// y = residual + act(x W^T + bias) over M = 2 x 150 rows: more than one of the CPU's 256-row
// epilogue blocks, and off every OpenCL tile multiple (64, 128, 256) in M, N and K. K = 45 takes
// the kernels that accept any K; `k`, `n` given: K = 200 (a multiple of 8, not of 64 or 32) and
// N = 300 take the f16 and tf32 cp.async pipelines, across two 256-column tiles with a K tail,
// K = 208 (a multiple of 16, not of 128) the s8 one.
// Small shapes (op_case.h): M = 2 x 8, N = 37 and K = 20, inside one 64 x 64 tile of the
// portable kernels and across two K steps of 16 (the pipelines are NVIDIA's).
std::vector<Check> run_linear(Backend& be, Precision p, bool bias, Act act, Res res,
                              bool calibrated = false, int64_t k = 45, int64_t n = 67) {
  k = shape(k, 20), n = shape(n, 37);
  const int64_t batch = 2, rows = shape(150, 8), m = batch * rows;
  const Vec x = random_vec(m * k, 10), w = random_vec(n * k, 11), b = random_vec(n, 12);
  const Vec r = random_vec(m * n, 13);
  Weight weight = be.prepare_weight(w, n, k, p);
  if (calibrated) weight.input_lo = -1.f, weight.input_hi = 1.f;  // random_vec's range
  const Tensor xt = up(be, x, {batch, rows, k}), bt = up(be, b, {n}), rt = up(be, r, {m, n});
  // y starts as NaN (or as the residual when in place): a GEMM must not read what it writes.
  Tensor y = up(be, res == Res::in_place ? r : Vec(m * n, std::nanf("")), {batch, rows, n});
  Epilogue ep{bias ? &bt : nullptr, act, nullptr};
  if (res != Res::none) ep.residual = res == Res::in_place ? &y : &rt;
  be.linear(xt, weight, y, ep);
  return {{"y", be.download(y),
           linear_ref(x, w, m, n, k, bias ? &b : nullptr, act, res == Res::none ? nullptr : &r),
           p}};
}

// conv1d with BN + GELU on its input, bias and a residual: `len` positions of `c` channels
// (c = 64 takes NVIDIA's implicit GEMM at f16 and tf32: a K tile lies within one tap).
std::vector<Check> run_conv1d(Backend& be, Precision p, int64_t len, int64_t c) {
  len = shape(len, std::min<int64_t>(len, 9)), c = shape(c, std::min<int64_t>(c, 4));
  const int64_t batch = 2, n = 24, m = batch * len;
  const int k = 5;
  const Vec x = random_vec(m * c, 20), w = random_vec(n * k * c, 21, -0.3f, 0.3f);
  const Vec scale = random_vec(c, 22, 0.5f, 1.5f), shift = random_vec(c, 23), b = random_vec(n, 24);
  const Vec r = random_vec(m * n, 25);
  const Weight weight = be.prepare_weight(w, n, k * c, p);
  const Tensor st = up(be, scale, {c}), ht = up(be, shift, {c}), bt = up(be, b, {n});
  const Tensor rt = up(be, r, {batch, len, n});
  Tensor y = up(be, Vec(m * n, std::nanf("")), {batch, len, n});
  be.conv1d(up(be, x, {batch, len, c}), k, weight, y, {&bt, Act::none, &rt}, {&st, &ht, Act::gelu});
  return {{"y", be.download(y),
           conv1d_ref(x, batch, len, c, k, w, n, &scale, &shift, Act::gelu, &b, Act::none, &r), p}};
}

std::vector<OpCase> gemm_cases() {
  std::vector<OpCase> c;
  for (Precision p :
       {Precision::f32, Precision::tf32, Precision::bf16, Precision::f16, Precision::int8}) {
    c.push_back({Op::prepare_weight, precision_name(p), needs_precision(p), [p](Backend& be) {
                   const Weight w = be.prepare_weight(random_vec(6 * 5, 3), 6, 5, p);
                   EXPECT_EQ(w.precision, p);
                   EXPECT_TRUE(w.n == 6 && w.k == 5 && w.data.defined() && !w.calibrated());
                   return std::vector<Check>{};
                 }});
  }
  struct Epi {
    const char* name;
    bool bias;
    Act act;
    Res res;
  };
  const Epi f32_epilogues[] = {
      {"plain", false, Act::none, Res::none},
      {"bias", true, Act::none, Res::none},
      {"bias_relu", true, Act::relu, Res::none},
      {"gelu", false, Act::gelu, Res::none},
      {"bias_softplus_residual", true, Act::softplus, Res::separate},
      {"bias_residual_in_place", true, Act::none, Res::in_place},
      {"residual_in_place", false, Act::none, Res::in_place},
      {"bias_gelu_residual_in_place", true, Act::gelu, Res::in_place},
  };
  for (const Epi& e : f32_epilogues)
    c.push_back({Op::linear, std::string("fp32_") + e.name, {}, [e](Backend& be) {
                   return run_linear(be, Precision::f32, e.bias, e.act, e.res);
                 }});
  for (Precision p : {Precision::tf32, Precision::bf16, Precision::f16, Precision::int8}) {
    const std::string name = precision_name(p);
    c.push_back({Op::linear, name + "_plain", needs_precision(p),
                 [p](Backend& be) { return run_linear(be, p, false, Act::none, Res::none); }});
    c.push_back({Op::linear, name + "_bias_gelu_residual_in_place", needs_precision(p),
                 [p](Backend& be) { return run_linear(be, p, true, Act::gelu, Res::in_place); }});
  }
  for (Precision p : {Precision::f16, Precision::tf32})
    c.push_back({Op::linear, std::string(precision_name(p)) + "_aligned_k_bias_gelu_residual",
                 needs_precision(p), [p](Backend& be) {
                   return run_linear(be, p, true, Act::gelu, Res::separate, false, 200, 300);
                 }});
  // The pipelines' epilogue unrolls one activation per case; these take two more of its cases.
  c.push_back(
      {Op::linear, "f16_aligned_k_bias_gelu_erf", needs_precision(Precision::f16), [](Backend& be) {
         return run_linear(be, Precision::f16, true, Act::gelu_erf, Res::none, false, 200, 300);
       }});
  c.push_back(
      {Op::linear, "tf32_aligned_k_relu", needs_precision(Precision::tf32), [](Backend& be) {
         return run_linear(be, Precision::tf32, false, Act::relu, Res::none, false, 200, 300);
       }});
  // K = 320 (5 K tiles of 64), M = N = 300: the work-groups whose 128 x 256 tile lies wholly
  // inside take the f16 pipeline's steady K loop (mma38's PIPE_CLEAN forms, the first two tiles),
  // the others its general loop; the cases above have K of 200, which never does.
  c.push_back({Op::linear, "f16_whole_k_tiles_bias_gelu_residual", needs_precision(Precision::f16),
               [](Backend& be) {
                 return run_linear(be, Precision::f16, true, Act::gelu, Res::separate, false, 320,
                                   300);
               }});
  // N = 302, not a multiple of 4: the pipelines' epilogue takes its scalar path for every row.
  c.push_back(
      {Op::linear, "f16_aligned_k_n_off_quads", needs_precision(Precision::f16), [](Backend& be) {
         return run_linear(be, Precision::f16, true, Act::gelu, Res::separate, false, 200, 302);
       }});
  c.push_back({Op::conv1d, "fp32_k5_bn_gelu_bias_residual", {}, [](Backend& be) {
                 return run_conv1d(be, Precision::f32, 9, 3);
               }});
  for (Precision p : {Precision::bf16, Precision::f16, Precision::tf32})
    c.push_back({Op::conv1d, std::string(precision_name(p)) + "_k5_64_channels", needs_precision(p),
                 [p](Backend& be) { return run_conv1d(be, p, 37, 64); }});
  // 128 channels: NVIDIA's s8 implicit GEMM (a K tile of 128), the input's own range.
  c.push_back({Op::conv1d, "int8_k5_128_channels", needs_precision(Precision::int8),
               [](Backend& be) { return run_conv1d(be, Precision::int8, 37, 128); }});
  // Uncalibrated, K the pipeline takes: NVIDIA quantizes x per call over its own range.
  c.push_back(
      {Op::linear, "int8_aligned_k_bias_relu", needs_precision(Precision::int8), [](Backend& be) {
         return run_linear(be, Precision::int8, true, Act::relu, Res::separate, false, 208, 300);
       }});
  c.push_back({Op::linear, "int8_calibrated_aligned_k_bias_relu", needs_precision(Precision::int8),
               [](Backend& be) {
                 return run_linear(be, Precision::int8, true, Act::relu, Res::separate, true, 208,
                                   300);
               }});
  c.push_back(
      {Op::linear, "int8_calibrated_bias_relu", needs_precision(Precision::int8), [](Backend& be) {
         return run_linear(be, Precision::int8, true, Act::relu, Res::separate, true);
       }});
  // A linear layer's product with its bias (GemmBatch::bias), C accumulated (beta 1) or written,
  // in fp32: every path but NVIDIA's tensor cores adds the bias after the product (those add it
  // in their epilogue: opencl_gemm_batched_test.cpp).
  for (const float beta : {0.f, 1.f})
    c.push_back({Op::gemm_batched,
                 std::string("fp32_bias") + (beta == 0.f ? "" : "_beta_1"),
                 {},
                 [beta](Backend& be) {
                   const int64_t m = 37, n = 150, k = 64;
                   GemmBatch g;
                   g.m = m, g.n = n, g.k = k, g.trans_b = true, g.beta = beta;
                   g.lda = k, g.ldb = k, g.ldc = n;
                   g.a_offsets = {0}, g.b_offsets = {0}, g.c_offsets = {0};
                   const Vec a = random_vec(m * k, 23), b = random_vec(n * k, 24),
                             bias = random_vec(n, 25), c0 = random_vec(m * n, 26);
                   const Tensor bias_t = up(be, bias, {n});
                   g.bias = &bias_t;
                   Tensor ct = up(be, c0, {m, n});
                   be.gemm_batched(g, up(be, a, {m * k}), up(be, b, {n * k}), ct);
                   const DVec want = gemm_batched_ref(g, a, b, c0, bias);
                   return std::vector<Check>{{"C", be.download(ct), want}};
                 }});
  for (bool trans_b : {true, false}) {
    c.push_back({Op::gemm_batched,
                 trans_b ? "offsets_lds_trans_b" : "offsets_lds",
                 {},
                 [trans_b](Backend& be) {
                   // Three items at offsets inside one buffer each, leading dimensions wider
                   // than the rows; C outside the items keeps what it held.
                   const int64_t m = 5, n = 7, k = 6, items = 3, b_rows = trans_b ? n : k;
                   GemmBatch g;
                   g.m = m, g.n = n, g.k = k, g.trans_b = trans_b, g.alpha = 0.5f;
                   g.lda = k + 3, g.ldb = (trans_b ? k : n) + 2, g.ldc = n + 4;
                   for (int64_t i = 0; i < items; ++i) {
                     g.a_offsets.push_back(1 + i * m * g.lda);
                     g.b_offsets.push_back(2 + (items - 1 - i) * b_rows * g.ldb);  // reversed
                     g.c_offsets.push_back(3 + i * m * g.ldc);
                   }
                   const Vec a = random_vec(4 + items * m * g.lda, 20),
                             b = random_vec(4 + items * b_rows * g.ldb, 21),
                             c0 = random_vec(4 + items * m * g.ldc, 22);
                   const auto size = [](const Vec& v) { return static_cast<int64_t>(v.size()); };
                   Tensor ct = up(be, c0, {size(c0)});
                   be.gemm_batched(g, up(be, a, {size(a)}), up(be, b, {size(b)}), ct);
                   const DVec want = gemm_batched_ref(g, a, b, c0);
                   return std::vector<Check>{{"C", be.download(ct), want}};
                 }});
  }
  return c;
}

}  // namespace

void add_memory_and_gemm_cases(std::vector<OpCase>& cases) {
  for (auto* group : {&memory_cases, &gemm_cases})
    for (OpCase& c : group()) cases.push_back(std::move(c));
}

}  // namespace sb::testing
