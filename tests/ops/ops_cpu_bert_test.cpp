// The CPU backend's BERT ops (ids, embedding, key bias, add+LayerNorm, masked mean, fused
// masked attention, calibrated int8 linear) against double references on small odd shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/ops/cpu/attention_masked.h"
#include "models/ops/cpu/cpu_backend.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/quantize.h"
#include "tests/ops/reference.h"

namespace sb {
namespace {

using Vec = std::vector<float>;
using sb::testing::random_vec;

double max_abs_diff(const Vec& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double m = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double d = std::abs(a[i] - b[i]);
    m = std::isnan(d) ? INFINITY : std::max(m, d);
  }
  return m;
}

class CpuBertOps : public ::testing::Test {
 protected:
  std::unique_ptr<Backend> be = make_cpu_backend();
  Tensor up(const Vec& v, std::vector<int64_t> shape) { return be->upload(v, std::move(shape)); }
};

TEST_F(CpuBertOps, UploadIdsMakesCountedI32Tensor) {
  const uint64_t before = be->memory().host->live();
  std::vector<int32_t> ids{3, 0, 7, 1, 2, 9};
  Tensor t = be->upload_ids(ids, {2, 3});
  EXPECT_EQ(t.dtype(), DType::i32);
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_GE(be->memory().host->live(), before + ids.size() * sizeof(int32_t));
  const int32_t* p = cpu::i32_data(t, "ids");
  EXPECT_EQ(std::vector<int32_t>(p, p + 6), ids);
  EXPECT_THROW(be->upload_ids(ids, {4, 2}), std::invalid_argument);
}

TEST_F(CpuBertOps, EmbeddingGathersAndAddsPositionRows) {
  const int64_t vocab = 11, d = 13, batch = 2, seq = 5, positions = 7;
  Vec table = random_vec(vocab * d, 1), rows = random_vec(positions * d, 2);
  std::vector<int32_t> ids{4, 0, 10, 4, 7, 1, 2, 9, 3, 10};
  Tensor tt = up(table, {vocab, d}), rt = up(rows, {positions, d});
  Tensor it = be->upload_ids(ids, {batch, seq});
  for (bool with_rows : {false, true}) {
    Tensor y = be->empty({batch, seq, d});
    be->embedding(tt, it, with_rows ? &rt : nullptr, y);
    std::vector<double> want(batch * seq * d);
    for (int64_t t = 0; t < batch * seq; ++t)
      for (int64_t c = 0; c < d; ++c)
        want[t * d + c] = double(table[ids[t] * d + c]) + (with_rows ? rows[(t % seq) * d + c] : 0);
    EXPECT_LT(max_abs_diff(be->download(y), want), 1e-6) << "rows " << with_rows;
  }
}

TEST_F(CpuBertOps, EmbeddingRejectsIdOutsideVocabulary) {
  const int64_t vocab = 11, d = 4;
  Tensor tt = up(random_vec(vocab * d, 3), {vocab, d});
  Tensor y = be->empty({2, 4, d});
  for (int32_t bad : {11, -1}) {
    std::vector<int32_t> ids{0, 1, 2, 3, 4, 5, bad, 6};
    Tensor it = be->upload_ids(ids, {2, 4});
    try {
      be->embedding(tt, it, nullptr, y);
      ADD_FAILURE() << "id " << bad << " was accepted";
    } catch (const std::out_of_range& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("id " + std::to_string(bad)), std::string::npos) << msg;
      EXPECT_NE(msg.find("position 6"), std::string::npos) << msg;
      EXPECT_NE(msg.find("size 11"), std::string::npos) << msg;
    }
  }
}

TEST_F(CpuBertOps, AddKeyBiasBroadcastsOverHeadsAndQueries) {
  const int64_t batch = 2, heads = 3, n = 5;
  Vec logits = random_vec(batch * heads * n * n, 4), bias = random_vec(batch * n, 5);
  Tensor lt = up(logits, {batch * heads, n, n}), bt = up(bias, {batch, n});
  be->add_key_bias(lt, bt, heads);
  std::vector<double> want(logits.size());
  for (int64_t g = 0; g < batch * heads; ++g)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const int64_t at = (g * n + i) * n + j;
        want[at] = double(logits[at]) + bias[(g / heads) * n + j];
      }
  EXPECT_LT(max_abs_diff(be->download(lt), want), 1e-6);
  EXPECT_THROW(be->add_key_bias(lt, bt, 4), std::invalid_argument);
}

std::vector<double> add_layernorm_ref(const Vec& x, const Vec& r, const Vec& g, const Vec& b,
                                      float eps, int64_t c) {
  std::vector<double> y(x.size());
  for (size_t r0 = 0; r0 < x.size(); r0 += c) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < c; ++i) mean += double(x[r0 + i]) + r[r0 + i];
    mean /= c;
    for (int64_t i = 0; i < c; ++i) var += std::pow(double(x[r0 + i]) + r[r0 + i] - mean, 2);
    var /= c;
    for (int64_t i = 0; i < c; ++i)
      y[r0 + i] = (double(x[r0 + i]) + r[r0 + i] - mean) / std::sqrt(var + eps) * g[i] + b[i];
  }
  return y;
}

TEST_F(CpuBertOps, AddLayernormMatchesReferenceAndMayAlias) {
  const int64_t batch = 2, rows = 7, c = 101;  // c: a partial Welford chunk
  const float eps = 1e-5f;
  Vec x = random_vec(batch * rows * c, 6, -2, 3), r = random_vec(batch * rows * c, 7),
      g = random_vec(c, 8, 0.5, 1.5), b = random_vec(c, 9);
  const auto want = add_layernorm_ref(x, r, g, b, eps, c);
  Tensor gt = up(g, {c}), bt = up(b, {c});
  for (int alias = 0; alias < 3; ++alias) {  // none, y == x, y == residual
    Tensor xt = up(x, {batch, rows, c}), rt = up(r, {batch, rows, c});
    Tensor y = alias == 1 ? xt : alias == 2 ? rt : be->empty({batch, rows, c});
    be->add_layernorm(xt, rt, gt, bt, eps, y);
    EXPECT_LT(max_abs_diff(be->download(y), want), 1e-5) << "alias " << alias;
  }
}

TEST_F(CpuBertOps, MaskedMeanWeighsTokensAndZeroesEmptyRows) {
  const int64_t batch = 3, seq = 5, d = 9;
  Vec x = random_vec(batch * seq * d, 10);
  Vec w{1, 1,   1, 0, 0,  // padded item
        0, 0,   0, 0, 0,  // no tokens at all
        1, 0.5, 1, 1, 2};
  Tensor y = be->empty({batch, d});
  be->masked_mean(up(x, {batch, seq, d}), up(w, {batch, seq}), y);
  std::vector<double> want(batch * d, 0.0);
  for (int64_t b = 0; b < batch; ++b) {
    double total = 0;
    for (int64_t s = 0; s < seq; ++s) total += w[b * seq + s];
    for (int64_t c = 0; c < d && total > 0; ++c) {
      for (int64_t s = 0; s < seq; ++s)
        want[b * d + c] += w[b * seq + s] * x[(b * seq + s) * d + c];
      want[b * d + c] /= total;
    }
  }
  const Vec got = be->download(y);
  EXPECT_LT(max_abs_diff(got, want), 1e-6);
  for (int64_t c = 0; c < d; ++c) EXPECT_EQ(got[d + c], 0.0f);
}

// Packed QKV [B, n, 3D] with D = heads * dh; out [B, n, D + 5] (a leading dimension of its own).
struct AttentionCase {
  int64_t n;
  enum Mask { none, trailing, leading } mask;
  int64_t query_block, key_block;  // 0: through the backend with its own blocks
};

void run_attention_case(Backend& be, const AttentionCase& c) {
  const int64_t batch = 2, heads = 3, dh = 8, d = heads * dh, ld_out = d + 5;
  AttentionShape s;
  s.batch = batch, s.n = c.n, s.heads = heads, s.dh = dh;
  s.scale = 1.0f / std::sqrt(float(dh));
  s.ld_q = s.ld_k = s.ld_v = 3 * d;
  s.q_col = 0, s.k_col = d, s.v_col = 2 * d;
  s.ld_out = ld_out;
  Vec qkv = random_vec(batch * c.n * 3 * d, 20 + c.n, -2, 2);
  Vec bias;
  if (c.mask != AttentionCase::none) {
    bias.assign(batch * c.n, 0.0f);
    // Item 1 loses its last 40% of keys; with `leading`, item 0 its first 45% too, so whole
    // early key blocks are masked before any real key arrives.
    for (int64_t j = c.n - c.n * 2 / 5; j < c.n; ++j) bias[c.n + j] = kMaskedLogit;
    if (c.mask == AttentionCase::leading)
      for (int64_t j = 0; j < c.n * 9 / 20; ++j) bias[j] = kMaskedLogit;
  }
  Vec sentinel(batch * c.n * ld_out, 7.0f);
  Tensor qkv_t = be.upload(qkv, {batch, c.n, 3 * d});
  Tensor out = be.upload(sentinel, {batch, c.n, ld_out});
  Tensor bias_t = bias.empty() ? Tensor() : be.upload(bias, {batch, c.n});
  if (c.query_block == 0) {
    be.attention_fused(s, qkv_t, qkv_t, qkv_t, bias.empty() ? nullptr : &bias_t, out);
  } else {
    const float* p = cpu::f32_data(qkv_t, "qkv");
    cpu::masked_attention_streaming(
        s,
        {p, p, p, bias.empty() ? nullptr : cpu::f32_data(bias_t, "bias"),
         cpu::f32_data(out, "out")},
        c.query_block, c.key_block);
  }
  std::vector<double> want = sb::testing::attention_ref(s, qkv, qkv, qkv, bias);
  const Vec got = be.download(out);
  // Columns past D belong to someone else and stay untouched.
  for (int64_t r = 0; r < batch * c.n; ++r)
    for (int64_t col = d; col < ld_out; ++col) want[r * ld_out + col] = 7.0;
  EXPECT_LT(max_abs_diff(got, want), 1e-5)
      << "n " << c.n << " mask " << c.mask << " blocks " << c.query_block << "x" << c.key_block;
}

TEST_F(CpuBertOps, AttentionFusedMatchesReference) {
  for (int64_t n : {37, 70}) {
    for (auto mask : {AttentionCase::none, AttentionCase::trailing}) {
      run_attention_case(*be, {n, mask, 0, 0});
    }
  }
}

TEST_F(CpuBertOps, AttentionStreamingAcrossBlockEdges) {
  for (int64_t n : {37, 70}) {
    for (auto mask : {AttentionCase::none, AttentionCase::trailing, AttentionCase::leading}) {
      run_attention_case(*be, {n, mask, 16, 8});
      run_attention_case(*be, {n, mask, 5, 32});
    }
  }
}

TEST_F(CpuBertOps, AttentionFusedRejectsColumnsPastLeadingDimension) {
  AttentionShape s;
  s.batch = 1, s.n = 4, s.heads = 2, s.dh = 3;
  s.ld_q = s.ld_k = s.ld_v = 6, s.ld_out = 6;
  s.k_col = 1;  // k's columns [1, 7) overflow ld 6
  Tensor t = be->empty({1, 4, 6});
  Tensor out = be->empty({1, 4, 6});
  EXPECT_THROW(be->attention_fused(s, t, t, t, nullptr, out), std::invalid_argument);
  s.k_col = 0;
  Tensor short_bias = be->empty({1, 3});
  EXPECT_THROW(be->attention_fused(s, t, t, t, &short_bias, out), std::invalid_argument);
}

TEST(CpuQuantizeRange, ClampsOutsideTheCalibratedRange) {
  Vec x{-3.0f, -1.0f, 0.0f, 0.7f, 1.5f, 9.0f};
  std::vector<uint8_t> q(x.size());
  const auto a =
      cpu::quantize_activations_u8_range(x.data(), int64_t(x.size()), -1.0f, 1.5f, q.data());
  EXPECT_FLOAT_EQ(a.scale, 2.5f / 255.0f);
  EXPECT_EQ(q[0], 0);  // clamped to lo
  EXPECT_EQ(q[1], 0);
  EXPECT_EQ(q[2], a.zero_point);  // zero is exact
  EXPECT_EQ(q[4], 255);
  EXPECT_EQ(q[5], 255);  // clamped to hi
  EXPECT_NEAR(a.scale * (q[3] - a.zero_point), 0.7f, a.scale * 0.5f + 1e-6f);
  // A range that excludes zero is widened to include it.
  const auto b = cpu::quantize_activations_u8_range(x.data(), 1, 0.5f, 2.0f, q.data());
  EXPECT_EQ(b.zero_point, 0);
  EXPECT_FLOAT_EQ(b.scale, 2.0f / 255.0f);
}

TEST_F(CpuBertOps, CalibratedInt8Linear) {
  if (auto reason = be->unsupported_reason(Precision::int8); !reason.empty())
    GTEST_SKIP() << reason;
  const int64_t m = 37, k = 45, n = 29;
  Vec x = random_vec(m * k, 30, -2, 2), w = random_vec(n * k, 31), bias = random_vec(n, 32);
  Tensor xt = up(x, {m, k}), bt = up(bias, {n});
  Epilogue ep;
  ep.bias = &bt;
  Weight dynamic = be->prepare_weight(w, n, k, Precision::int8);
  ASSERT_FALSE(dynamic.calibrated());
  Tensor y_dynamic = be->empty({m, n});
  be->linear(xt, dynamic, y_dynamic, ep);

  // Calibrated to exactly the input's own range: the very same quantization.
  Weight same = dynamic;
  same.input_lo = *std::min_element(x.begin(), x.end());
  same.input_hi = *std::max_element(x.begin(), x.end());
  ASSERT_TRUE(same.calibrated());
  Tensor y_same = be->empty({m, n});
  be->linear(xt, same, y_same, ep);
  EXPECT_EQ(be->download(y_same), be->download(y_dynamic));

  // A narrower range clamps: compare with the int8 arithmetic emulated exactly in double.
  const float lo = -1.0f, hi = 1.25f;
  Weight narrow = dynamic;
  narrow.input_lo = lo, narrow.input_hi = hi;
  Tensor y_narrow = be->empty({m, n});
  be->linear(xt, narrow, y_narrow, ep);
  std::vector<int8_t> qw(n * k);
  Vec w_scales(n);
  cpu::quantize_weights_s8(w.data(), n, k, qw.data(), w_scales.data());
  std::vector<uint8_t> qx(m * k);
  const auto a = cpu::quantize_activations_u8_range(x.data(), m * k, lo, hi, qx.data());
  std::vector<double> emulated(m * n), clamped_ref(m * n), unclamped_ref(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t acc = 0;
      double clamped = 0, unclamped = 0;
      for (int64_t c = 0; c < k; ++c) {
        acc += int64_t(qx[i * k + c] - a.zero_point) * qw[j * k + c];
        clamped += std::clamp(double(x[i * k + c]), double(lo), double(hi)) * w[j * k + c];
        unclamped += double(x[i * k + c]) * w[j * k + c];
      }
      emulated[i * n + j] = double(a.scale) * w_scales[j] * double(acc) + bias[j];
      clamped_ref[i * n + j] = clamped + bias[j];
      unclamped_ref[i * n + j] = unclamped + bias[j];
    }
  const Vec got = be->download(y_narrow);
  EXPECT_LT(max_abs_diff(got, emulated), 1e-4);
  EXPECT_LT(max_abs_diff(got, clamped_ref), 0.1);    // int8 error only
  EXPECT_GT(max_abs_diff(got, unclamped_ref), 0.5);  // the clamp really happened
}

}  // namespace
}  // namespace sb
