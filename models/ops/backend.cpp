// The fronts of the general ops (core_ops.h): each op's arguments are validated here, once for
// every backend, by the policy backend.h states; then the backend's do_<op> runs (unless there is
// nothing to write).
#include "models/ops/core_ops.h"

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "models/ops/op_checks.h"
#include "models/ops/slow_op_fault.h"

namespace sb {

using namespace checks;

namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  return Tensor(shape, DType::f32, nullptr).shape_string();
}

// The element count of a shape of non-negative dimensions.
int64_t expect_shape(Op op, const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) fail(op, "shape " + shape_text(shape) + " has a negative dimension");
    n *= d;
  }
  return n;
}

// An activation: fp32, or f16 where the backend has f16 GEMMs (issue 27: a half-precision
// stage keeps the activations between its linear layers, LayerNorms and attention in f16; the
// backend's kernels say which calls they take, statistics stay fp32).
void expect_activation(const CoreOps& be, Op op, const char* what, const Tensor& t) {
  if (t.defined() && t.dtype() == DType::f16) {
    if (const std::string why = be.unsupported_reason(Precision::f16); !why.empty())
      fail(op, describe(what, t) + " is f16, which needs f16 kernels: " + why);
    return;
  }
  expect_f32(op, what, t);
}

void expect_activation_numel(const CoreOps& be, Op op, const char* what, const Tensor& t,
                             int64_t numel, const char* expected) {
  expect_activation(be, op, what, t);
  if (t.numel() != numel)
    fail(op, describe(what, t) + " is not " + expected + " (" + text(numel) + " elements)");
}

// A packed attention operand: [B, n, ld] with the heads' columns [col, col + width) inside ld.
void expect_strided(const CoreOps& be, Op op, const char* what, const Tensor& t, int64_t rows,
                    int64_t ld, int64_t col, int64_t width) {
  if (ld <= 0 || col < 0 || col + width > ld)
    fail(op, std::string(what) + " columns [" + text(col) + ", " + text(col + width) +
                 ") do not fit its leading dimension " + text(ld));
  expect_activation_numel(be, op, what, t, rows * ld, "[B, n, ld]");
}

// An InputTransform of `channels` (im2col's and conv1d's), none of it aliasing `out`.
void expect_transform(Op op, const InputTransform& t, int64_t channels, const char* out_name,
                      const Tensor& out) {
  const Named transforms[] = {{"transform scale", t.scale}, {"transform shift", t.shift}};
  for (const auto& [what, p] : transforms)
    if (p != nullptr) {
      expect_f32_numel(op, what, *p, channels, "[C]");
      expect_distinct(op, out_name, out, what, *p);
    }
  expect_act(op, t.act);
}

}  // namespace

// --- memory -----------------------------------------------------------------------------

Tensor CoreOps::empty(std::vector<int64_t> shape, DType dtype) {
  expect_shape(Op::empty, shape);
  return do_empty(std::move(shape), dtype);
}

Tensor CoreOps::upload(std::span<const float> host, std::vector<int64_t> shape) {
  if (expect_shape(Op::upload, shape) != static_cast<int64_t>(host.size()))
    fail(Op::upload,
         text(static_cast<int64_t>(host.size())) + " values for shape " + shape_text(shape));
  return do_upload(host, std::move(shape));
}

Tensor CoreOps::upload_ids(std::span<const int32_t> host, std::vector<int64_t> shape) {
  if (expect_shape(Op::upload_ids, shape) != static_cast<int64_t>(host.size()))
    fail(Op::upload_ids,
         text(static_cast<int64_t>(host.size())) + " ids for shape " + shape_text(shape));
  Tensor t = do_upload_ids(host, std::move(shape));
  if (!host.empty()) t.storage()->ids = id_range(host);
  return t;
}

std::vector<float> CoreOps::download(const Tensor& t) {
  expect_activation(*this, Op::download, "tensor", t);  // f16 comes back widened
  return do_download(t);
}

// --- GEMM -------------------------------------------------------------------------------

Weight CoreOps::prepare_weight(std::span<const float> w, int64_t n, int64_t k, Precision p) {
  const Op op = Op::prepare_weight;
  if (n <= 0 || k <= 0 || static_cast<int64_t>(w.size()) != n * k)
    fail(op, text(static_cast<int64_t>(w.size())) + " values for a [" + text(n) + ", " + text(k) +
                 "] weight (n, k > 0)");
  if (const std::string reason = unsupported_reason(p); !reason.empty())
    fail(op, std::string(precision_name(p)) + " is not supported on " + device() + ": " + reason);
  return do_prepare_weight(w, n, k, p);
}

void CoreOps::linear(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep) {
  const Op op = Op::linear;
  if (!w.data.defined() || w.n <= 0 || w.k <= 0) fail(op, "the weight is not prepared");
  expect_activation(*this, op, "input", x);
  if (x.numel() % w.k != 0)
    fail(op, describe("input", x) + " is not a multiple of K = " + text(w.k));
  const int64_t m = x.numel() / w.k;
  expect_activation(*this, op, "output", y);
  if (y.numel() != m * w.n)
    fail(op, describe("output", y) + " is not M x N = " + text(m) + " x " + text(w.n));
  if (ep.bias != nullptr) {
    expect_f32_numel(op, "bias", *ep.bias, w.n, "[N]");
    expect_distinct(op, "the output", y, "the bias", *ep.bias);
  }
  if (ep.residual != nullptr) {
    expect_f32_numel(op, "residual", *ep.residual, m * w.n, "[M, N]");
    if (y.dtype() != DType::f32) fail(op, describe("output", y) + " must be f32 with a residual");
  }
  expect_act(op, ep.act);
  expect_distinct(op, "the output", y, "the input", x);
  if (m == 0) return;
  run_op(*this, Op::linear, [&] { do_linear(x, w, y, ep); });
}

bool CoreOps::check_gemm_batched(const GemmBatch& g, const Tensor& a, const Tensor& b,
                                 const Tensor& c) {
  const Op op = Op::gemm_batched;
  const size_t count = g.a_offsets.size();
  if (g.b_offsets.size() != count || g.c_offsets.size() != count)
    fail(op, "the a, b and c offset lists differ in length");
  if (g.m < 0 || g.n < 0 || g.k < 0)
    fail(op, "negative size " + text(g.m) + " x " + text(g.n) + " x " + text(g.k));
  const int64_t a_rows = g.trans_a ? g.k : g.m, a_cols = g.trans_a ? g.m : g.k;
  const int64_t b_rows = g.trans_b ? g.n : g.k, b_cols = g.trans_b ? g.k : g.n;
  if (g.lda < a_cols || g.ldb < b_cols || g.ldc < g.n)
    fail(op, "a leading dimension is below its row length (lda " + text(g.lda) + ", ldb " +
                 text(g.ldb) + ", ldc " + text(g.ldc) + ")");
  expect_f32(op, "A", a);
  expect_f32(op, "B", b);
  expect_f32(op, "C", c);
  expect_distinct(op, "C", c, "A", a);
  expect_distinct(op, "C", c, "B", b);
  if (g.precision == Precision::int8)
    fail(op, "int8 has no batched GEMM (its operands are activations, not prepared weights)");
  if (g.precision != Precision::f32)
    if (const std::string reason = unsupported_reason(g.precision); !reason.empty())
      fail(op, std::string(precision_name(g.precision)) + " is not supported on " + device() +
                   ": " + reason);
  if (count == 0 || g.m == 0 || g.n == 0) return false;
  if (g.k == 0) fail(op, "k = 0 (an empty sum) has no kernel");
  // The last element an item touches: (rows - 1) * ld + cols.
  auto inside = [&](size_t i, int64_t offset, int64_t rows, int64_t cols, int64_t ld,
                    const Tensor& t, const char* which) {
    if (offset < 0 || offset + (rows - 1) * ld + cols > t.numel())
      fail(op, "item " + text(static_cast<int64_t>(i)) + " runs outside " + describe(which, t));
  };
  for (size_t i = 0; i < count; ++i) {
    inside(i, g.a_offsets[i], a_rows, a_cols, g.lda, a, "A");
    inside(i, g.b_offsets[i], b_rows, b_cols, g.ldb, b, "B");
    inside(i, g.c_offsets[i], g.m, g.n, g.ldc, c, "C");
  }
  if (g.bias != nullptr) {
    if (count != 1 || g.c_offsets[0] != 0 || g.ldc != g.n || c.numel() != g.m * g.n)
      fail(op, "a bias needs one item whose C is the whole contiguous [m, n] tensor");
    expect_f32_numel(op, "bias", *g.bias, g.n, "[n]");
    expect_distinct(op, "C", c, "the bias", *g.bias);
  }
  return true;
}

void CoreOps::gemm_batched(const GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c) {
  if (!check_gemm_batched(g, a, b, c)) return;
  run_op(*this, Op::gemm_batched, [&] {
    do_gemm_batched(g, a, b, c);
    if (g.bias != nullptr && !fuses_gemm_bias(g)) {
      Tensor rows = c.reshaped({g.m, g.n});
      do_affine_channels(rows, nullptr, g.bias, rows);
    }
  });
}

void CoreOps::linear_backward(const Tensor& x, const Tensor& dy, const Tensor& w, Tensor& dw,
                              Tensor& db, Tensor* dx, float dx_beta, Precision p, bool autotune) {
  const Op op = Op::gemm_batched;
  if (w.rank() != 2 || w.dim(0) <= 0 || w.dim(1) <= 0)
    fail(op, "linear_backward: " + describe("W", w) + " is not [out, in]");
  const int64_t out = w.dim(0), in = w.dim(1);
  if (dy.numel() % out != 0)
    fail(op, "linear_backward: " + describe("dy", dy) + " is not [rows, " + text(out) + "]");
  const int64_t rows = dy.numel() / out;
  expect_f32_numel(op, "x", x, rows * in, "[rows, in]");
  expect_f32_numel(op, "dW", dw, out * in, "[out, in]");
  expect_f32_numel(op, "db", db, out, "[out]");
  expect_distinct(op, "db", db, "dW", dw);
  GemmBatch gw;  // dW [out, in] = dy^T x
  gw.m = out, gw.n = in, gw.k = rows, gw.trans_a = true, gw.trans_b = false;
  gw.lda = out, gw.ldb = in, gw.ldc = in;
  gw.a_offsets = gw.b_offsets = gw.c_offsets = {0};
  gw.precision = p, gw.autotune = autotune;
  GemmBatch gx = gw;  // dx [rows, in] = dy W + beta dx
  gx.m = rows, gx.n = in, gx.k = out, gx.trans_a = false, gx.beta = dx_beta;
  gx.lda = out, gx.ldb = in, gx.ldc = in;
  if (dx != nullptr) {
    expect_f32_numel(op, "dx", *dx, rows * in, "[rows, in]");
    expect_distinct(op, "dx", *dx, "db", db);
    expect_distinct(op, "dx", *dx, "dW", dw);
  }
  if (!check_gemm_batched(gw, dy, x, dw)) return;  // no rows: nothing to write
  if (dx != nullptr) check_gemm_batched(gx, dy, w, *dx);
  run_op(*this, Op::gemm_batched,
         [&] { do_linear_backward(gw, dx ? &gx : nullptr, x, dy, w, dw, db, dx); });
}

bool CoreOps::evenly_strided(const std::vector<int64_t>& offsets, int64_t* step) {
  const int64_t d = offsets.size() > 1 ? offsets[1] - offsets[0] : 0;
  if (step != nullptr) *step = d;
  if (d < 0) return false;
  for (size_t i = 1; i < offsets.size(); ++i)
    if (offsets[i] - offsets[i - 1] != d) return false;
  return true;
}

std::string CoreOps::gemm_autotune_key(const GemmBatch& g) {
  const bool strided = evenly_strided(g.a_offsets, nullptr) &&
                       evenly_strided(g.b_offsets, nullptr) && evenly_strided(g.c_offsets, nullptr);
  return "m=" + text(g.m) + " n=" + text(g.n) + " k=" + text(g.k) + " ta=" + text(g.trans_a) +
         " tb=" + text(g.trans_b) + " beta=" + text(g.beta != 0.0f) +
         " items=" + text(static_cast<int64_t>(g.a_offsets.size())) + " lda=" + text(g.lda) +
         " ldb=" + text(g.ldb) + " ldc=" + text(g.ldc) + " strided=" + text(strided);
}

// --- data movement ----------------------------------------------------------------------

void CoreOps::im2col(const Tensor& x, int k, Tensor& cols, const InputTransform& t) {
  const Op op = Op::im2col;
  expect_f32_rank(op, "input", x, 3, "[B, L, C]");
  if (k <= 0) fail(op, "kernel width k = " + text(k) + " must be positive");
  const int64_t channels = x.dim(2);
  expect_f32_numel(op, "cols", cols, x.dim(0) * x.dim(1) * k * channels, "[B*L, k*C]");
  expect_transform(op, t, channels, "cols", cols);
  expect_distinct(op, "cols", cols, "the input", x);
  if (cols.numel() == 0) return;
  run_op(*this, Op::im2col, [&] { do_im2col(x, k, cols, t); });
}

void CoreOps::conv1d(const Tensor& x, int k, const Weight& w, Tensor& y, const Epilogue& ep,
                     const InputTransform& t, Tensor* columns) {
  const Op op = Op::conv1d;
  if (!w.data.defined() || w.n <= 0 || w.k <= 0) fail(op, "the weight is not prepared");
  // x and y may be f16 where the backend's f16 pipeline reads and writes them (issue 27).
  expect_activation(*this, op, "input", x);
  if (x.rank() != 3) fail(op, describe("input", x) + " is not [B, L, C]");
  if (k <= 0 || k % 2 == 0)
    fail(op, "kernel width k = " + text(k) + " must be odd and positive ('same' padding)");
  const int64_t channels = x.dim(2), m = x.dim(0) * x.dim(1);
  if (w.k != k * channels)
    fail(op,
         "the weight's K = " + text(w.k) + " is not k x C = " + text(k) + " x " + text(channels));
  expect_activation(*this, op, "output", y);
  if (y.rank() != 3) fail(op, describe("output", y) + " is not [B, L, N]");
  if (y.dim(0) != x.dim(0) || y.dim(1) != x.dim(1) || y.dim(2) != w.n)
    fail(op, describe("output", y) + " is not [B, L, N] = [" + text(x.dim(0)) + ", " +
                 text(x.dim(1)) + ", " + text(w.n) + "]");
  if (ep.bias != nullptr) {
    expect_f32_numel(op, "bias", *ep.bias, w.n, "[N]");
    expect_distinct(op, "the output", y, "the bias", *ep.bias);
  }
  if (ep.residual != nullptr) expect_f32_numel(op, "residual", *ep.residual, m * w.n, "[B, L, N]");
  expect_act(op, ep.act);
  expect_transform(op, t, channels, "the output", y);
  expect_distinct(op, "the output", y, "the input", x);
  if (columns != nullptr) {
    expect_f32_numel(op, "columns", *columns, m * k * channels, "[B*L, k*C]");
    expect_distinct(op, "columns", *columns, "the input", x);
    expect_distinct(op, "columns", *columns, "the output", y);
  }
  if (y.numel() == 0) return;
  if (!conv1d_gathers_columns(k, w, channels)) {
    run_op(*this, Op::conv1d, [&] { do_conv1d(x, k, w, y, ep, t, nullptr); });
    return;
  }
  Tensor own;
  if (columns == nullptr) own = empty({m, k * channels}), columns = &own;
  run_op(*this, Op::conv1d, [&] { do_conv1d(x, k, w, y, ep, t, columns); });
}

void CoreOps::copy_rows(const Tensor& x, int64_t start, Tensor& y) {
  const Op op = Op::copy_rows;
  expect_f32_rank(op, "input", x, 3, "[B, L, C]");
  expect_f32_rank(op, "output", y, 3, "[B, rows, C]");
  if (y.dim(0) != x.dim(0) || y.dim(2) != x.dim(2) || start < 0 || start + y.dim(1) > x.dim(1))
    fail(op, "rows [" + text(start) + ", " + text(start + y.dim(1)) + ") of " +
                 describe("input", x) + " do not fit " + describe("output", y));
  expect_distinct(op, "the output", y, "the input", x);
  if (y.numel() == 0) return;
  do_copy_rows(x, start, y);
}

void CoreOps::convert(const Tensor& x, Tensor& y) {
  const Op op = Op::convert;
  expect_activation(*this, op, "input", x);
  expect_activation_numel(*this, op, "output", y, x.numel(), "the input's size");
  expect_distinct(op, "the output", y, "the input", x);
  if (y.numel() == 0) return;
  run_op(*this, Op::convert, [&] { do_convert(x, y); });
}

void CoreOps::embedding(const Tensor& table, const Tensor& ids, const Tensor* rows, Tensor& y) {
  const Op op = Op::embedding;
  expect_f32_rank(op, "table", table, 2, "[V, D]");
  expect_dtype(op, "ids", ids, DType::i32);
  if (ids.rank() != 2) fail(op, describe("ids", ids) + " is not [B, S]");
  const int64_t vocab = table.dim(0), dim = table.dim(1), seq = ids.dim(1);
  const int64_t tokens = ids.numel();
  expect_f32(op, "output", y);
  if (y.numel() != tokens * dim || y.rank() < 1 || y.dim(-1) != dim)
    fail(op, describe("output", y) + " is not [B, S, D] = [" + text(ids.dim(0)) + ", " + text(seq) +
                 ", " + text(dim) + "]");
  if (rows != nullptr) {
    expect_f32_rank(op, "rows", *rows, 2, "[>= S, D]");
    if (rows->dim(0) < seq || rows->dim(1) != dim)
      fail(op, describe("rows", *rows) + " do not cover " + text(seq) + " positions of width " +
                   text(dim));
    expect_distinct(op, "the output", y, "the rows", *rows);
  }
  expect_distinct(op, "the output", y, "the table", table);
  if (tokens > 0) expect_ids_inside(op, ids, vocab, seq);
  if (y.numel() == 0) return;
  run_op(*this, Op::embedding, [&] { do_embedding(table, ids, rows, y); });
}

// --- elementwise ------------------------------------------------------------------------

void CoreOps::affine_channels(const Tensor& x, const Tensor* scale, const Tensor* shift,
                              Tensor& y) {
  const Op op = Op::affine_channels;
  expect_f32(op, "input", x);
  const int64_t channels = expect_channels(op, "input", x);
  expect_f32_numel(op, "output", y, x.numel(), "the input's size");
  const Named affine[] = {{"scale", scale}, {"shift", shift}};
  for (const auto& [what, p] : affine)
    if (p != nullptr) {
      expect_f32_numel(op, what, *p, channels, "[C]");
      expect_distinct(op, "the output", y, what, *p);
    }
  if (y.numel() == 0) return;
  do_affine_channels(x, scale, shift, y);
}

void CoreOps::sigmoid_scaled(const Tensor& x, float alpha, Tensor& y) {
  const Op op = Op::sigmoid_scaled;
  expect_f32(op, "input", x);
  expect_f32_numel(op, "output", y, x.numel(), "the input's size");
  if (y.numel() == 0) return;
  do_sigmoid_scaled(x, alpha, y);
}

void CoreOps::mul(const Tensor& a, const Tensor& b, Tensor& y) {
  const Op op = Op::mul;
  expect_f32(op, "a", a);
  expect_f32_numel(op, "b", b, a.numel(), "a's size");
  expect_f32_numel(op, "output", y, a.numel(), "a's size");
  if (y.numel() == 0) return;
  run_op(*this, Op::mul, [&] { do_mul(a, b, y); });
}

void CoreOps::add(const Tensor& a, const Tensor& b, Tensor& y) {
  const Op op = Op::add;
  expect_f32(op, "a", a);
  expect_f32_numel(op, "b", b, a.numel(), "a's size");
  expect_f32_numel(op, "output", y, a.numel(), "a's size");
  if (y.numel() == 0) return;
  run_op(*this, Op::add, [&] { do_add(a, b, y); });
}

void CoreOps::activation(const Tensor& x, Act act, Tensor& y) {
  const Op op = Op::activation;
  expect_f32(op, "input", x);
  expect_f32_numel(op, "output", y, x.numel(), "the input's size");
  expect_act(op, act);
  if (y.numel() == 0) return;
  run_op(*this, Op::activation, [&] { do_activation(x, act, y); });
}

// --- normalization and softmax ----------------------------------------------------------

namespace {

// x [rows, C] with gamma and beta [C], y of x's size and neither gamma nor beta; returns C.
int64_t expect_norm(const CoreOps& be, Op op, const Tensor& x, const Tensor& gamma,
                    const Tensor& beta, float eps, const Tensor& y) {
  expect_activation(be, op, "input", x);
  const int64_t channels = expect_channels(op, "input", x);
  expect_f32_numel(op, "gamma", gamma, channels, "[C]");
  expect_f32_numel(op, "beta", beta, channels, "[C]");
  expect_activation_numel(be, op, "output", y, x.numel(), "the input's size");
  expect_distinct(op, "the output", y, "gamma", gamma);
  expect_distinct(op, "the output", y, "beta", beta);
  expect_eps(op, eps);
  return channels;
}

}  // namespace

void CoreOps::layernorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps,
                        Tensor& y) {
  expect_norm(*this, Op::layernorm, x, gamma, beta, eps, y);
  if (y.numel() == 0) return;
  run_op(*this, Op::layernorm, [&] { do_layernorm(x, gamma, beta, eps, y); });
}

void CoreOps::add_layernorm(const Tensor& x, const Tensor& residual, const Tensor& gamma,
                            const Tensor& beta, float eps, Tensor& y) {
  const Op op = Op::add_layernorm;
  expect_norm(*this, op, x, gamma, beta, eps, y);
  expect_activation_numel(*this, op, "residual", residual, x.numel(), "the input's size");
  if (y.numel() == 0) return;
  run_op(*this, Op::add_layernorm, [&] { do_add_layernorm(x, residual, gamma, beta, eps, y); });
}

void CoreOps::normalize_rows(const Tensor& x, const Tensor& mean, const Tensor& var,
                             const Tensor& gamma, const Tensor& beta, float eps, Tensor& y) {
  const Op op = Op::normalize_rows;
  expect_norm(*this, op, x, gamma, beta, eps, y);
  expect_f32(op, "input", x);
  expect_f32(op, "output", y);
  const int64_t rows = leading_rows(x);
  expect_f32_numel(op, "mean", mean, rows, "[rows]");
  expect_f32_numel(op, "var", var, rows, "[rows]");
  expect_distinct(op, "the output", y, "the mean", mean);
  expect_distinct(op, "the output", y, "the variance", var);
  if (y.numel() == 0) return;
  do_normalize_rows(x, mean, var, gamma, beta, eps, y);
}

void CoreOps::softmax_rows(Tensor& x) {
  expect_f32(Op::softmax_rows, "input", x);
  expect_channels(Op::softmax_rows, "input", x);
  if (x.numel() == 0) return;
  run_op(*this, Op::softmax_rows, [&] { do_softmax_rows(x); });
}

void CoreOps::softmax_axis1(const Tensor& x, Tensor& y) {
  const Op op = Op::softmax_axis1;
  expect_f32_rank(op, "input", x, 3, "[outer, n, inner]");
  expect_f32_numel(op, "output", y, x.numel(), "the input's size");
  if (y.numel() == 0) return;
  do_softmax_axis1(x, y);
}

// --- reductions -------------------------------------------------------------------------

void CoreOps::row_moments(const Tensor& x, Tensor& mean, Tensor& var) {
  const Op op = Op::row_moments;
  expect_f32(op, "input", x);
  const int64_t channels = expect_channels(op, "input", x), rows = leading_rows(x);
  expect_f32_numel(op, "mean", mean, rows, "[rows]");
  expect_f32_numel(op, "var", var, rows, "[rows]");
  expect_distinct(op, "the mean", mean, "the input", x);
  expect_distinct(op, "the variance", var, "the input", x);
  expect_distinct(op, "the variance", var, "the mean", mean);
  if (rows == 0) return;
  if (channels == 0) fail(op, "the rows of " + describe("input", x) + " are empty: no mean");
  do_row_moments(x, mean, var);
}

void CoreOps::sum_axis1(const Tensor& x, const Tensor* weights, Tensor& y) {
  const Op op = Op::sum_axis1;
  expect_f32_rank(op, "input", x, 3, "[outer, n, inner]");
  expect_f32_numel(op, "output", y, x.dim(0) * x.dim(2), "[outer, inner]");
  expect_distinct(op, "the output", y, "the input", x);
  if (weights != nullptr) {
    expect_f32_numel(op, "weights", *weights, x.numel(), "the input's size");
    expect_distinct(op, "the output", y, "the weights", *weights);
  }
  if (y.numel() == 0) return;
  do_sum_axis1(x, weights, y);
}

void CoreOps::masked_mean(const Tensor& x, const Tensor& weights, Tensor& y) {
  const Op op = Op::masked_mean;
  expect_f32_rank(op, "input", x, 3, "[B, S, D]");
  expect_f32_numel(op, "weights", weights, x.dim(0) * x.dim(1), "[B, S]");
  expect_f32_numel(op, "output", y, x.dim(0) * x.dim(2), "[B, D]");
  expect_distinct(op, "the output", y, "the input", x);
  expect_distinct(op, "the output", y, "the weights", weights);
  if (y.numel() == 0) return;
  run_op(*this, Op::masked_mean, [&] { do_masked_mean(x, weights, y); });
}

// --- attention --------------------------------------------------------------------------

void CoreOps::add_key_bias(Tensor& logits, const Tensor& key_bias, int64_t heads) {
  const Op op = Op::add_key_bias;
  expect_f32_rank(op, "logits", logits, 3, "[B*heads, n, n]");
  if (heads <= 0 || logits.dim(1) != logits.dim(2) || logits.dim(0) % heads != 0)
    fail(op, describe("logits", logits) + " are not [B*heads, n, n] for heads = " + text(heads));
  expect_f32_numel(op, "key_bias", key_bias, logits.dim(0) / heads * logits.dim(1), "[B, n]");
  expect_distinct(op, "the logits", logits, "the key bias", key_bias);
  if (logits.numel() == 0) return;
  do_add_key_bias(logits, key_bias, heads);
}

void CoreOps::rel_shift_add(Tensor& logits, const Tensor& rel) {
  const Op op = Op::rel_shift_add;
  expect_f32_rank(op, "logits", logits, 3, "[B*H, n, n]");
  const int64_t groups = logits.dim(0), n = logits.dim(1);
  if (logits.dim(2) != n) fail(op, describe("logits", logits) + " are not [B*H, n, n]");
  expect_f32_rank(op, "rel", rel, 3, "[B*H, n, 2n-1]");
  if (rel.dim(0) != groups || rel.dim(1) != n || rel.dim(2) != (n > 0 ? 2 * n - 1 : 0))
    fail(op, describe("rel", rel) + " is not [B*H, n, 2n-1] for " + describe("logits", logits));
  expect_distinct(op, "the logits", logits, "rel", rel);
  if (logits.numel() == 0) return;
  do_rel_shift_add(logits, rel);
}

void CoreOps::attention_fused(const AttentionShape& s, const Tensor& q, const Tensor& k,
                              const Tensor& v, const Tensor* key_bias, Tensor& out) {
  const Op op = Op::attention_fused;
  if (s.batch < 0 || s.n < 0 || s.heads < 0 || s.dh < 0)
    fail(op, "negative shape: batch " + text(s.batch) + ", n " + text(s.n) + ", heads " +
                 text(s.heads) + ", dh " + text(s.dh));
  if (s.precision != Precision::f32 && s.precision != Precision::tf32 &&
      s.precision != Precision::f16 && s.precision != Precision::bf16)
    fail(op, std::string("precision ") + precision_name(s.precision) +
                 " is none of fp32, tf32, fp16, bf16");
  const int64_t rows = s.batch * s.n, width = s.heads * s.dh;
  expect_strided(*this, op, "q", q, rows, s.ld_q, s.q_col, width);
  expect_strided(*this, op, "k", k, rows, s.ld_k, s.k_col, width);
  expect_strided(*this, op, "v", v, rows, s.ld_v, s.v_col, width);
  expect_strided(*this, op, "out", out, rows, s.ld_out, 0, width);
  const Named inputs[] = {{"q", &q}, {"k", &k}, {"v", &v}};
  for (const auto& [what, in] : inputs) expect_distinct(op, "out", out, what, *in);
  if (key_bias != nullptr) {
    expect_f32_numel(op, "key_bias", *key_bias, rows, "[B, n]");
    expect_distinct(op, "out", out, "key_bias", *key_bias);
  }
  if (rows * width == 0) return;
  run_op(*this, Op::attention_fused, [&] { do_attention_fused(s, q, k, v, key_bias, out); });
}

void CoreOps::rel_attention_fused(const RelAttentionShape& s, const Tensor& q, const Tensor& k,
                                  const Tensor& v, const Tensor& rel_k, const Tensor& content_bias,
                                  const Tensor& pos_bias, Tensor& out) {
  const Op op = Op::rel_attention_fused;
  if (s.batch < 0 || s.n < 0 || s.heads < 0 || s.dk < 0 || s.dv < 0)
    fail(op, "negative shape: batch " + text(s.batch) + ", n " + text(s.n) + ", heads " +
                 text(s.heads) + ", dk " + text(s.dk) + ", dv " + text(s.dv));
  const int64_t tokens = s.batch * s.n, hk = s.heads * s.dk, hv = s.heads * s.dv;
  expect_f32_numel(op, "q", q, tokens * hk, "[B, n, H*dk]");
  // k, v, rel_k and out may be f16 where the backend's f16 kernel reads or writes them so.
  expect_activation_numel(*this, op, "k", k, tokens * hk, "[B, n, H*dk]");
  expect_activation_numel(*this, op, "v", v, tokens * hv, "[B, n, H*dv]");
  expect_activation_numel(*this, op, "out", out, tokens * hv, "[B, n, H*dv]");
  expect_activation_numel(*this, op, "rel_k", rel_k, (s.n > 0 ? 2 * s.n - 1 : 0) * hk,
                          "[2n-1, H*dk]");
  expect_f32_numel(op, "content_bias", content_bias, hk, "[H*dk]");
  expect_f32_numel(op, "pos_bias", pos_bias, hk, "[H*dk]");
  const Named inputs[] = {{"q", &q},
                          {"k", &k},
                          {"v", &v},
                          {"rel_k", &rel_k},
                          {"content_bias", &content_bias},
                          {"pos_bias", &pos_bias}};
  for (const auto& [what, in] : inputs) expect_distinct(op, "out", out, what, *in);
  if (out.numel() == 0) return;
  if (s.dk == 0) fail(op, "dk = 0: every logit would be an empty sum");
  run_op(*this, Op::rel_attention_fused,
         [&] { do_rel_attention_fused(s, q, k, v, rel_k, content_bias, pos_bias, out); });
}

// --- attention pooling -----------------------------------------------------------------

void CoreOps::attention_pool(const Tensor& x, const Tensor& logits, Tensor& y,
                             const InputTransform& t) {
  const Op op = Op::attention_pool;
  expect_activation(*this, op, "input", x);  // f16 where its producer wrote it so
  if (x.rank() != 3) fail(op, describe("input", x) + " is not [B, L, C]");
  expect_f32(op, "logits", logits);
  if (logits.shape() != x.shape())
    fail(op, describe("logits", logits) + " are not the input's shape " + x.shape_string());
  if (x.dim(1) % 2 != 0) fail(op, describe("input", x) + " has an odd length: pairs need L even");
  expect_activation(*this, op, "output", y);
  if (y.rank() != 3) fail(op, describe("output", y) + " is not [B, L/2, C]");
  if (y.dim(0) != x.dim(0) || y.dim(1) != x.dim(1) / 2 || y.dim(2) != x.dim(2))
    fail(op, describe("output", y) + " is not " + describe("input", x) + " pooled by 2");
  expect_distinct(op, "the output", y, "the input", x);
  expect_distinct(op, "the output", y, "the logits", logits);
  expect_transform(op, t, x.dim(2), "the output", y);
  if (y.numel() == 0) return;
  run_op(*this, Op::attention_pool, [&] { do_attention_pool(x, logits, y, t); });
}

}  // namespace sb
