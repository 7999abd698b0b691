// The CPU backend's ops against naive double-precision references on small random shapes
// (sizes chosen off the kernels' block multiples, batch 2).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "models/ops/cpu/attention_kernels.h"
#include "models/ops/cpu/cpu_backend.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/quantize.h"
#include "tests/ops/reference.h"

namespace sb {
namespace {

using Vec = std::vector<float>;
using sb::testing::act_ref;
using sb::testing::random_vec;

double max_abs_diff(const Vec& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double m = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

double rel_l2(const Vec& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return std::sqrt(num / den);
}

double cosine(const Vec& a, const std::vector<double>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ab += a[i] * b[i];
    aa += double(a[i]) * a[i];
    bb += b[i] * b[i];
  }
  return ab / std::sqrt(aa * bb);
}

class CpuOps : public ::testing::Test {
 protected:
  std::unique_ptr<Backend> be = make_cpu_backend();
  Tensor up(const Vec& v, std::vector<int64_t> shape) { return be->upload(v, std::move(shape)); }
};

TEST_F(CpuOps, NamesItselfAndCountsHostMemory) {
  EXPECT_EQ(be->name(), "cpu");
  EXPECT_FALSE(be->device().empty());
  const AllocationTracker* host = be->memory().host;
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(be->memory().device, nullptr);
  const uint64_t before = host->live();
  {
    Tensor t = be->empty({3, 100});
    EXPECT_GE(host->live(), before + 1200);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.storage_as<cpu::HostStorage>().data()) % 64, 0u);
    Tensor u = be->empty({5});  // a fresh allocation per call
    EXPECT_GE(host->live(), before + 1220);
  }
  EXPECT_EQ(host->live(), before);
  EXPECT_GE(host->peak(), before + 1220);
}

TEST_F(CpuOps, UploadDownloadRoundTripAndShapeCheck) {
  Vec v = random_vec(24, 1);
  Tensor t = up(v, {2, 3, 4});
  EXPECT_EQ(be->download(t), v);
  EXPECT_THROW(up(v, {5, 5}), std::invalid_argument);
}

TEST_F(CpuOps, PrecisionSupport) {
  EXPECT_EQ(be->unsupported_reason(Precision::f32), "");
  EXPECT_NE(be->unsupported_reason(Precision::tf32), "");
  EXPECT_NE(be->unsupported_reason(Precision::f16), "");
  Vec w = random_vec(6, 2);
  EXPECT_THROW(be->prepare_weight(w, 2, 3, Precision::tf32), std::invalid_argument);
  EXPECT_THROW(be->prepare_weight(w, 4, 3, Precision::f32), std::invalid_argument);
}

// Reference y = residual + act(x W^T + bias) in double.
std::vector<double> linear_ref(const Vec& x, const Vec& w, const Vec* bias, Act act,
                               const Vec* residual, int64_t m, int64_t n, int64_t k) {
  std::vector<double> y(m * n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = bias ? (*bias)[j] : 0.0;
      for (int64_t c = 0; c < k; ++c) s += double(x[i * k + c]) * w[j * k + c];
      y[i * n + j] = act_ref(act, s) + (residual ? (*residual)[i * n + j] : 0.0);
    }
  }
  return y;
}

enum class Res { none, separate, alias };

struct LinearCase {
  Precision precision;
  bool bias;
  Act act;
  Res residual;
};

// Runs one linear case with M = 2 x 300 rows (several epilogue blocks plus a partial one).
std::pair<Vec, std::vector<double>> run_linear(Backend& be, const LinearCase& c) {
  const int64_t batch = 2, rows = 300, k = 45, n = 29, m = batch * rows;
  Vec x = random_vec(m * k, 10, -2, 2), w = random_vec(n * k, 11), b = random_vec(n, 12),
      r = random_vec(m * n, 13);
  Weight weight = be.prepare_weight(w, n, k, c.precision);
  Tensor xt = be.upload(x, {batch, rows, k});
  Tensor bt = be.upload(b, {n});
  Tensor rt = be.upload(r, {batch, rows, n});
  Tensor yt =
      c.residual == Res::alias ? be.upload(r, {batch, rows, n}) : be.empty({batch, rows, n});
  Epilogue ep;
  ep.bias = c.bias ? &bt : nullptr;
  ep.act = c.act;
  ep.residual = c.residual == Res::none ? nullptr : c.residual == Res::alias ? &yt : &rt;
  be.linear(xt, weight, yt, ep);
  return {be.download(yt), linear_ref(x, w, c.bias ? &b : nullptr, c.act,
                                      c.residual == Res::none ? nullptr : &r, m, n, k)};
}

TEST_F(CpuOps, LinearF32EveryEpilogue) {
  for (bool bias : {false, true}) {
    for (Act act : {Act::none, Act::relu, Act::gelu, Act::softplus}) {
      for (Res res : {Res::none, Res::separate, Res::alias}) {
        auto [got, want] = run_linear(*be, {Precision::f32, bias, act, res});
        EXPECT_LT(max_abs_diff(got, want), 2e-5)
            << "bias " << bias << " act " << int(act) << " residual " << int(res);
      }
    }
  }
}

TEST_F(CpuOps, LinearBf16WithinTolerance) {
  if (auto reason = be->unsupported_reason(Precision::bf16); !reason.empty())
    GTEST_SKIP() << reason;
  for (auto c : {LinearCase{Precision::bf16, false, Act::none, Res::none},
                 LinearCase{Precision::bf16, true, Act::gelu, Res::alias},
                 LinearCase{Precision::bf16, true, Act::softplus, Res::separate},
                 LinearCase{Precision::bf16, false, Act::relu, Res::none}}) {
    auto [got, want] = run_linear(*be, c);
    EXPECT_LT(rel_l2(got, want), 1e-2) << "act " << int(c.act) << " residual " << int(c.residual);
  }
}

TEST_F(CpuOps, LinearInt8WithinTolerance) {
  if (auto reason = be->unsupported_reason(Precision::int8); !reason.empty())
    GTEST_SKIP() << reason;
  for (auto c : {LinearCase{Precision::int8, false, Act::none, Res::none},
                 LinearCase{Precision::int8, true, Act::relu, Res::alias},
                 LinearCase{Precision::int8, true, Act::gelu, Res::separate},
                 LinearCase{Precision::int8, true, Act::softplus, Res::none}}) {
    auto [got, want] = run_linear(*be, c);
    EXPECT_GT(cosine(got, want), 0.99) << "act " << int(c.act) << " residual " << int(c.residual);
    EXPECT_LT(rel_l2(got, want), 0.05) << "act " << int(c.act);
  }
}

TEST(CpuQuantize, RoundTripsWithinHalfAStep) {
  const int64_t n = 5, k = 33;
  Vec w = random_vec(n * k, 14, -3, 3);
  std::fill_n(w.begin() + k, k, 0.0f);  // an all-zero channel keeps a usable scale
  std::vector<int8_t> qw(n * k);
  Vec scales(n);
  cpu::quantize_weights_s8(w.data(), n, k, qw.data(), scales.data());
  EXPECT_EQ(scales[1], 1.0f);
  for (int64_t i = 0; i < n * k; ++i) {
    EXPECT_LE(std::abs(w[i] - scales[i / k] * qw[i]), scales[i / k] * 0.5f + 1e-6f);
  }
  Vec x = random_vec(1000, 15, -0.5, 4);
  x[7] = 0.0f;
  std::vector<uint8_t> qx(x.size());
  const auto a = cpu::quantize_activations_u8(x.data(), int64_t(x.size()), qx.data());
  EXPECT_EQ(qx[7], a.zero_point);  // zero is exact
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_LE(std::abs(x[i] - a.scale * (int(qx[i]) - a.zero_point)), a.scale * 0.5f + 1e-5f);
  }
}

TEST_F(CpuOps, GemmBatchedWithOffsetsAndLeadingDimensions) {
  const int64_t m = 5, n = 7, k = 6, items = 3;
  for (bool trans_b : {true, false}) {
    GemmBatch g;
    g.m = m, g.n = n, g.k = k, g.trans_b = trans_b, g.alpha = 0.5f;
    g.lda = k + 3, g.ldb = (trans_b ? k : n) + 2, g.ldc = n + 4;
    const int64_t b_rows = trans_b ? n : k;
    for (int64_t i = 0; i < items; ++i) {
      g.a_offsets.push_back(1 + i * m * g.lda);
      g.b_offsets.push_back(2 + i * b_rows * g.ldb);
      g.c_offsets.push_back(3 + i * m * g.ldc);
    }
    Vec a = random_vec(4 + items * m * g.lda, 20), b = random_vec(4 + items * b_rows * g.ldb, 21);
    Vec c0 = random_vec(4 + items * m * g.ldc, 22);
    Tensor at = up(a, {int64_t(a.size())}), bt = up(b, {int64_t(b.size())});
    Tensor ct = up(c0, {int64_t(c0.size())});
    be->gemm_batched(g, at, bt, ct);
    std::vector<double> want(c0.begin(), c0.end());  // untouched outside the items
    for (int64_t it = 0; it < items; ++it) {
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double s = 0;
          for (int64_t c = 0; c < k; ++c) {
            const double bv =
                trans_b ? b[g.b_offsets[it] + j * g.ldb + c] : b[g.b_offsets[it] + c * g.ldb + j];
            s += a[g.a_offsets[it] + i * g.lda + c] * bv;
          }
          want[g.c_offsets[it] + i * g.ldc + j] = 0.5 * s;
        }
      }
    }
    EXPECT_LT(max_abs_diff(be->download(ct), want), 1e-5) << "trans_b " << trans_b;
    g.a_offsets[0] = int64_t(a.size()) - 2;
    EXPECT_THROW(be->gemm_batched(g, at, bt, ct), std::invalid_argument);
  }
}

TEST_F(CpuOps, Im2colPlainAndTransformedKeepsPaddingZero) {
  const int64_t batch = 2, len = 7, c = 3;
  const int k = 5;
  Vec x = random_vec(batch * len * c, 30), scale = random_vec(c, 31),
      shift = random_vec(c, 32, 0.5, 1);
  Tensor xt = up(x, {batch, len, c}), st = up(scale, {c}), ht = up(shift, {c});
  for (bool transformed : {false, true}) {
    InputTransform t;
    if (transformed) t = {&st, &ht, Act::gelu};
    Tensor cols = be->empty({batch * len, k * c});
    be->im2col(xt, k, cols, t);
    std::vector<double> want(batch * len * k * c, 0.0);
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
    EXPECT_LT(max_abs_diff(be->download(cols), want), 1e-6) << "transformed " << transformed;
  }
}

TEST_F(CpuOps, CopyRows) {
  Vec x = random_vec(2 * 9 * 4, 40);
  Tensor xt = up(x, {2, 9, 4}), yt = be->empty({2, 5, 4});
  be->copy_rows(xt, 3, yt);
  Vec y = be->download(yt);
  for (int b = 0; b < 2; ++b)
    for (int r = 0; r < 5; ++r)
      for (int c = 0; c < 4; ++c) EXPECT_EQ(y[(b * 5 + r) * 4 + c], x[(b * 9 + 3 + r) * 4 + c]);
  EXPECT_THROW(be->copy_rows(xt, 5, yt), std::invalid_argument);
}

TEST_F(CpuOps, ElementwiseOps) {
  const int64_t rows = 2 * 13, c = 7, total = rows * c;
  Vec x = random_vec(total, 50, -4, 4), y2 = random_vec(total, 51), s = random_vec(c, 52),
      t = random_vec(c, 53);
  x[0] = 90.0f, x[1] = -30.0f;  // softplus/sigmoid must neither overflow nor lose the tail
  Tensor xt = up(x, {2, 13, c}), bt = up(y2, {2, 13, c}), st = up(s, {c}), tt = up(t, {c});
  Tensor out = be->empty({2, 13, c});
  std::vector<double> want(total);

  be->affine_channels(xt, &st, &tt, out);
  for (int64_t i = 0; i < total; ++i) want[i] = double(x[i]) * s[i % c] + t[i % c];
  EXPECT_LT(max_abs_diff(be->download(out), want), 1e-5);
  be->affine_channels(xt, nullptr, &tt, out);
  for (int64_t i = 0; i < total; ++i) want[i] = double(x[i]) + t[i % c];
  EXPECT_LT(max_abs_diff(be->download(out), want), 1e-5);

  be->sigmoid_scaled(xt, 1.5f, out);
  for (int64_t i = 0; i < total; ++i) want[i] = 1 / (1 + std::exp(-1.5 * x[i]));
  EXPECT_LT(max_abs_diff(be->download(out), want), 1e-6);

  be->mul(xt, bt, out);
  for (int64_t i = 0; i < total; ++i) want[i] = double(x[i]) * y2[i];
  EXPECT_LT(max_abs_diff(be->download(out), want), 1e-5);
  be->add(xt, bt, out);
  for (int64_t i = 0; i < total; ++i) want[i] = double(x[i]) + y2[i];
  EXPECT_LT(max_abs_diff(be->download(out), want), 1e-5);

  for (Act a : {Act::none, Act::relu, Act::gelu, Act::softplus}) {
    Tensor in_place = up(x, {2, 13, c});
    be->activation(in_place, a, in_place);  // y may alias x
    for (int64_t i = 0; i < total; ++i) want[i] = act_ref(a, x[i]);
    Vec got = be->download(in_place);
    EXPECT_LT(max_abs_diff(got, want), 2e-5) << "act " << int(a);
    if (a == Act::softplus) {
      EXPECT_NEAR(got[1] / std::exp(-30.0), 1.0, 1e-4);  // the tail log1p(e^-30), not 0
    }
  }
}

std::vector<double> layernorm_ref(const Vec& x, const Vec& g, const Vec& b, int64_t c, double eps) {
  std::vector<double> y(x.size());
  for (size_t r = 0; r < x.size() / c; ++r) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < c; ++i) mean += x[r * c + i];
    mean /= c;
    for (int64_t i = 0; i < c; ++i) var += (x[r * c + i] - mean) * (x[r * c + i] - mean);
    var /= c;
    for (int64_t i = 0; i < c; ++i)
      y[r * c + i] = (x[r * c + i] - mean) / std::sqrt(var + eps) * g[i] + b[i];
  }
  return y;
}

TEST_F(CpuOps, LayerNormThreePassAndWelford) {
  const int64_t c = 150;  // several Welford chunks plus a partial one
  Vec x = random_vec(2 * 11 * c, 60, -3, 5), g = random_vec(c, 61), b = random_vec(c, 62);
  for (auto& v : x) v += 100.0f;  // a large mean stresses the one-pass statistics
  Tensor xt = up(x, {2, 11, c}), gt = up(g, {c}), bt = up(b, {c});
  const auto want = layernorm_ref(x, g, b, c, 1e-5);
  for (bool one_pass : {false, true}) {
    Tensor yt = be->empty({2, 11, c});
    const uint64_t allocated = be->memory().host->total_allocated();
    be->layernorm(xt, gt, bt, 1e-5f, yt, one_pass);
    const uint64_t stats_bytes = be->memory().host->total_allocated() - allocated;
    EXPECT_LT(max_abs_diff(be->download(yt), want), 2e-4) << "one_pass " << one_pass;
    if (one_pass) {
      EXPECT_EQ(stats_bytes, 0u);
    } else {
      EXPECT_GE(stats_bytes, 2u * 22 * sizeof(float));  // means and variances materialized
    }
  }
}

TEST_F(CpuOps, SoftmaxRowsSubtractsTheMax) {
  const int64_t c = 19;
  Vec x = random_vec(2 * 5 * c, 70, -3, 3);
  x[3] = 1000.0f;  // would overflow exp without the max subtracted
  Tensor xt = up(x, {2, 5, c});
  be->softmax_rows(xt);
  std::vector<double> want(x.size());
  for (size_t r = 0; r < x.size() / c; ++r) {
    double m = -1e300, s = 0;
    for (int64_t i = 0; i < c; ++i) m = std::max(m, double(x[r * c + i]));
    for (int64_t i = 0; i < c; ++i) s += std::exp(x[r * c + i] - m);
    for (int64_t i = 0; i < c; ++i) want[r * c + i] = std::exp(x[r * c + i] - m) / s;
  }
  EXPECT_LT(max_abs_diff(be->download(xt), want), 1e-6);
}

TEST_F(CpuOps, AttentionPoolBothVariants) {
  const int64_t batch = 2, len = 10, c = 5;
  Vec x = random_vec(batch * len * c, 80), lg = random_vec(batch * len * c, 81, -5, 5);
  lg[0] = 200.0f;  // one weight saturates to exactly 1
  Tensor xt = up(x, {batch, len, c}), lt = up(lg, {batch, len, c});
  std::vector<double> want(batch * len / 2 * c);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t p = 0; p < len / 2; ++p)
      for (int64_t ch = 0; ch < c; ++ch) {
        const int64_t i0 = (b * len + 2 * p) * c + ch, i1 = i0 + c;
        const double m = std::max(lg[i0], lg[i1]);
        const double e0 = std::exp(lg[i0] - m), e1 = std::exp(lg[i1] - m);
        want[(b * len / 2 + p) * c + ch] = (x[i0] * e0 + x[i1] * e1) / (e0 + e1);
      }
  for (bool one_pass : {false, true}) {
    Tensor yt = be->empty({batch, len / 2, c});
    be->attention_pool(xt, lt, yt, one_pass);
    EXPECT_LT(max_abs_diff(be->download(yt), want), 1e-6) << "one_pass " << one_pass;
  }
}

TEST_F(CpuOps, RelShiftAdd) {
  const int64_t groups = 3, n = 6;
  Vec lg = random_vec(groups * n * n, 90), rel = random_vec(groups * n * (2 * n - 1), 91);
  Tensor lt = up(lg, {groups, n, n}), rt = up(rel, {groups, n, 2 * n - 1});
  be->rel_shift_add(lt, rt);
  std::vector<double> want(lg.size());
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        want[(g * n + i) * n + j] =
            double(lg[(g * n + i) * n + j]) + rel[(g * n + i) * (2 * n - 1) + n - 1 + j - i];
  EXPECT_LT(max_abs_diff(be->download(lt), want), 1e-6);
}

struct AttentionInputs {
  RelAttentionShape s{2, 37, 2, 16, 24};
  Vec q, k, v, rel_k, cb, pb;
  AttentionInputs() {
    const int64_t qk = s.batch * s.n * s.heads * s.dk;
    q = random_vec(qk, 100), k = random_vec(qk, 101);
    v = random_vec(s.batch * s.n * s.heads * s.dv, 102);
    rel_k = random_vec((2 * s.n - 1) * s.heads * s.dk, 103);
    cb = random_vec(s.heads * s.dk, 104), pb = random_vec(s.heads * s.dk, 105);
  }
  std::vector<double> reference() const {
    const int64_t n = s.n, H = s.heads, dk = s.dk, dv = s.dv;
    std::vector<double> out(s.batch * n * H * dv, 0.0), logits(n);
    for (int64_t b = 0; b < s.batch; ++b)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < n; ++i) {
          double m = -1e300, sum = 0;
          for (int64_t j = 0; j < n; ++j) {
            double l = 0;
            for (int64_t c = 0; c < dk; ++c) {
              const double qv = q[(b * n + i) * H * dk + h * dk + c];
              l += (qv + cb[h * dk + c]) * k[(b * n + j) * H * dk + h * dk + c];
              l += (qv + pb[h * dk + c]) * rel_k[(n - 1 + j - i) * H * dk + h * dk + c];
            }
            logits[j] = l;
            m = std::max(m, l);
          }
          for (int64_t j = 0; j < n; ++j) sum += (logits[j] = std::exp(logits[j] - m));
          for (int64_t j = 0; j < n; ++j)
            for (int64_t c = 0; c < dv; ++c)
              out[(b * n + i) * H * dv + h * dv + c] +=
                  logits[j] / sum * v[(b * n + j) * H * dv + h * dv + c];
        }
    return out;
  }
};

TEST_F(CpuOps, RelAttentionFusedMatchesUnfusedPipeline) {
  AttentionInputs in;
  const auto& s = in.s;
  const int64_t n = s.n, H = s.heads, dk = s.dk, dv = s.dv, B = s.batch;
  Tensor q = up(in.q, {B, n, H * dk}), k = up(in.k, {B, n, H * dk}), v = up(in.v, {B, n, H * dv});
  Tensor rel_k = up(in.rel_k, {2 * n - 1, H * dk}), cb = up(in.cb, {H * dk}),
         pb = up(in.pb, {H * dk});

  // The eager pipeline: biased queries, content GEMM, relative GEMM, shift, softmax, GEMM.
  Tensor qc = be->empty({B, n, H * dk}), qp = be->empty({B, n, H * dk});
  be->affine_channels(q, nullptr, &cb, qc);
  be->affine_channels(q, nullptr, &pb, qp);
  Tensor logits = be->empty({B * H, n, n}), rel = be->empty({B * H, n, 2 * n - 1});
  GemmBatch content{n, n, dk, true, 1.0f, H * dk, H * dk, n, {}, {}, {}};
  GemmBatch relative{n, 2 * n - 1, dk, true, 1.0f, H * dk, H * dk, 2 * n - 1, {}, {}, {}};
  GemmBatch weighted{n, dv, n, false, 1.0f, n, H * dv, H * dv, {}, {}, {}};
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      content.a_offsets.push_back(b * n * H * dk + h * dk);
      content.b_offsets.push_back(b * n * H * dk + h * dk);
      content.c_offsets.push_back((b * H + h) * n * n);
      relative.a_offsets.push_back(b * n * H * dk + h * dk);
      relative.b_offsets.push_back(h * dk);
      relative.c_offsets.push_back((b * H + h) * n * (2 * n - 1));
      weighted.a_offsets.push_back((b * H + h) * n * n);
      weighted.b_offsets.push_back(b * n * H * dv + h * dv);
      weighted.c_offsets.push_back(b * n * H * dv + h * dv);
    }
  be->gemm_batched(content, qc, k, logits);
  be->gemm_batched(relative, qp, rel_k, rel);
  be->rel_shift_add(logits, rel);
  be->softmax_rows(logits);
  Tensor unfused = be->empty({B, n, H * dv}), fused = be->empty({B, n, H * dv});
  be->gemm_batched(weighted, logits, v, unfused);
  be->rel_attention_fused(s, q, k, v, rel_k, cb, pb, fused);

  const auto want = in.reference();
  const Vec got_unfused = be->download(unfused), got_fused = be->download(fused);
  EXPECT_LT(max_abs_diff(got_unfused, want), 1e-5);
  EXPECT_LT(max_abs_diff(got_fused, want), 1e-5);
  std::vector<double> unfused_d(got_unfused.begin(), got_unfused.end());
  EXPECT_GT(cosine(got_fused, unfused_d), 0.99999);
}

TEST_F(CpuOps, StreamingAttentionAcrossBlockEdges) {
  AttentionInputs in;
  const auto want = in.reference();
  // Blocks smaller than n, not dividing it, in both directions.
  for (auto [qb, kb] : {std::pair<int64_t, int64_t>{8, 16}, {5, 7}, {16, 4}, {64, 256}}) {
    Vec out(want.size(), -1.0f);
    cpu::rel_attention_streaming(in.s,
                                 {in.q.data(), in.k.data(), in.v.data(), in.rel_k.data(),
                                  in.cb.data(), in.pb.data(), out.data()},
                                 qb, kb);
    EXPECT_LT(max_abs_diff(out, want), 1e-5) << "blocks " << qb << " x " << kb;
  }
}

}  // namespace
}  // namespace sb
