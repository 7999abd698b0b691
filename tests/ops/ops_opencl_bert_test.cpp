// The OpenCL backend's BERT-style ops against double-precision references, on the default
// device (PoCL here). One backend for the whole binary, so the program is built once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/ops/opencl/device_select.h"
#include "models/ops/opencl/opencl_backend.h"
#include "tests/ops/reference.h"

namespace sb {
namespace {

using Vec = std::vector<float>;
using DVec = std::vector<double>;
using sb::testing::attention_ref;
using sb::testing::random_vec;

Backend* shared_backend() {
  static std::unique_ptr<Backend> backend = [] {
    try {
      return make_opencl_backend("");
    } catch (const std::exception&) {
      return std::unique_ptr<Backend>();
    }
  }();
  return backend.get();
}

// Elementwise |got - want| <= tol * (1 + |want|); reports the worst element.
void expect_close(const Vec& got, const DVec& want, double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  size_t worst = 0;
  double worst_excess = -1;
  for (size_t i = 0; i < got.size(); ++i) {
    const double excess = std::fabs(got[i] - want[i]) - tol * (1 + std::fabs(want[i]));
    if (excess > worst_excess) worst_excess = excess, worst = i;
  }
  EXPECT_LE(worst_excess, 0.0) << "element " << worst << ": got " << got[worst] << ", want "
                               << want[worst];
}

class OpenCLBertOps : public ::testing::Test {
 protected:
  void SetUp() override {
    be = shared_backend();
    if (!be) GTEST_SKIP() << "no OpenCL device:\n" << list_opencl_devices();
  }
  Tensor up(const Vec& v, std::vector<int64_t> shape) { return be->upload(v, std::move(shape)); }
  Vec down(const Tensor& t) { return be->download(t); }

  Backend* be = nullptr;
};

TEST_F(OpenCLBertOps, UploadIdsMakesAnI32Tensor) {
  const std::vector<int32_t> ids = {3, 1, 4, 1, 5, 9};
  Tensor t = be->upload_ids(ids, {2, 3});
  EXPECT_EQ(t.dtype(), DType::i32);
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_THROW(be->upload_ids(ids, {4, 2}), std::invalid_argument);
}

TEST_F(OpenCLBertOps, EmbeddingWithAndWithoutRowsClampsIds) {
  const int64_t batch = 2, seq = 5, vocab = 7, dim = 13, max_rows = 6;
  const Vec table = random_vec(vocab * dim, 1);
  const Vec rows = random_vec(max_rows * dim, 2);
  // -3 and 11 lie outside [0, 7): the device clamps them to rows 0 and 6.
  const std::vector<int32_t> ids = {0, 6, 3, -3, 2, 5, 11, 1, 1, 4};
  Tensor table_t = up(table, {vocab, dim});
  Tensor rows_t = up(rows, {max_rows, dim});
  Tensor ids_t = be->upload_ids(ids, {batch, seq});
  for (bool with_rows : {false, true}) {
    DVec want(batch * seq * dim);
    for (int64_t t = 0; t < batch * seq; ++t) {
      const int64_t id = std::clamp<int64_t>(ids[t], 0, vocab - 1);
      for (int64_t c = 0; c < dim; ++c)
        want[t * dim + c] =
            double(table[id * dim + c]) + (with_rows ? rows[(t % seq) * dim + c] : 0.0);
    }
    Tensor y = be->empty({batch, seq, dim});
    be->embedding(table_t, ids_t, with_rows ? &rows_t : nullptr, y);
    SCOPED_TRACE(with_rows ? "with rows" : "without rows");
    expect_close(down(y), want);
  }
  Tensor y = be->empty({batch, seq, dim});
  Tensor short_rows = up(random_vec(4 * dim, 3), {4, dim});
  EXPECT_THROW(be->embedding(table_t, ids_t, &short_rows, y), std::invalid_argument);
  Tensor float_ids = up(Vec(batch * seq), {batch, seq});
  EXPECT_THROW(be->embedding(table_t, float_ids, nullptr, y), std::invalid_argument);
}

TEST_F(OpenCLBertOps, AddKeyBias) {
  const int64_t batch = 2, heads = 3, n = 5;
  const Vec logits = random_vec(batch * heads * n * n, 4);
  const Vec bias = random_vec(batch * n, 5, -3.0f, 3.0f);
  Tensor t = up(logits, {batch * heads, n, n});
  be->add_key_bias(t, up(bias, {batch, n}), heads);
  DVec want(logits.size());
  for (int64_t bh = 0; bh < batch * heads; ++bh)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const int64_t e = (bh * n + i) * n + j;
        want[e] = double(logits[e]) + bias[(bh / heads) * n + j];
      }
  expect_close(down(t), want);
  EXPECT_THROW(be->add_key_bias(t, up(bias, {batch, n}), 4), std::invalid_argument);
}

TEST_F(OpenCLBertOps, AddLayerNormIncludingInPlace) {
  // 300 columns: several per item; 1100: wider than a row in registers (add, then LayerNorm).
  for (int64_t cols : {37, 300, 1100}) {
    const int64_t rows = 3;
    const Vec x = random_vec(rows * cols, 6, -2.0f, 3.0f);
    const Vec r = random_vec(rows * cols, 7);
    const Vec gamma = random_vec(cols, 8, 0.5f, 1.5f);
    const Vec beta = random_vec(cols, 9);
    const float eps = 1e-5f;
    DVec want(rows * cols);
    for (int64_t i = 0; i < rows; ++i) {
      double mean = 0, var = 0;
      for (int64_t c = 0; c < cols; ++c) mean += double(x[i * cols + c]) + r[i * cols + c];
      mean /= cols;
      for (int64_t c = 0; c < cols; ++c) {
        const double d = double(x[i * cols + c]) + r[i * cols + c] - mean;
        var += d * d;
      }
      var /= cols;
      for (int64_t c = 0; c < cols; ++c)
        want[i * cols + c] =
            (double(x[i * cols + c]) + r[i * cols + c] - mean) / std::sqrt(var + eps) * gamma[c] +
            beta[c];
    }
    Tensor g = up(gamma, {cols}), b = up(beta, {cols});
    SCOPED_TRACE("cols " + std::to_string(cols));
    {
      Tensor xt = up(x, {rows, cols}), rt = up(r, {rows, cols}), y = be->empty({rows, cols});
      be->add_layernorm(xt, rt, g, b, eps, y);
      expect_close(down(y), want);
    }
    {
      Tensor xt = up(x, {rows, cols}), rt = up(r, {rows, cols});
      be->add_layernorm(xt, rt, g, b, eps, xt);
      expect_close(down(xt), want);
    }
    {
      Tensor xt = up(x, {rows, cols}), rt = up(r, {rows, cols});
      be->add_layernorm(xt, rt, g, b, eps, rt);
      expect_close(down(rt), want);
    }
  }
}

TEST_F(OpenCLBertOps, MaskedMeanWithAnEmptyRow) {
  const int64_t batch = 3, seq = 5, dim = 7;
  const Vec x = random_vec(batch * seq * dim, 10);
  // Item 0: padding at the end; item 1: no tokens at all; item 2: every token.
  const Vec w = {1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1};
  DVec want(batch * dim, 0.0);
  for (int64_t b = 0; b < batch; ++b) {
    double total = 0;
    for (int64_t s = 0; s < seq; ++s) total += w[b * seq + s];
    for (int64_t c = 0; c < dim && total > 0; ++c) {
      double sum = 0;
      for (int64_t s = 0; s < seq; ++s) sum += w[b * seq + s] * double(x[(b * seq + s) * dim + c]);
      want[b * dim + c] = sum / total;
    }
  }
  Tensor y = be->empty({batch, dim});
  be->masked_mean(up(x, {batch, seq, dim}), up(w, {batch, seq}), y);
  const Vec got = down(y);
  expect_close(got, want);
  for (int64_t c = 0; c < dim; ++c) EXPECT_EQ(got[dim + c], 0.0f);
}

// Packed QKV [B, n, 3D] as BERT's fused projection makes it; optionally the last `padded` keys
// of the last item masked with kMaskedLogit and small random biases elsewhere.
void check_attention(Backend* be, int64_t batch, int64_t n, int64_t heads, int64_t dh,
                     bool with_bias, int64_t padded, unsigned seed) {
  SCOPED_TRACE("B " + std::to_string(batch) + " n " + std::to_string(n) + " heads " +
               std::to_string(heads) + " dh " + std::to_string(dh) +
               (with_bias ? " with key bias" : " without key bias"));
  const int64_t d = heads * dh;
  AttentionShape s;
  s.batch = batch;
  s.n = n;
  s.heads = heads;
  s.dh = dh;
  s.scale = 1.0f / std::sqrt(float(dh));
  s.ld_q = s.ld_k = s.ld_v = 3 * d;
  s.ld_out = d;
  s.q_col = 0;
  s.k_col = d;
  s.v_col = 2 * d;
  const Vec qkv = random_vec(batch * n * 3 * d, seed, -2.0f, 2.0f);
  Vec bias;
  if (with_bias) {
    bias = random_vec(batch * n, seed + 1, -0.5f, 0.5f);
    for (int64_t j = n - padded; j < n; ++j) bias[(batch - 1) * n + j] = kMaskedLogit;
  }
  const DVec want = attention_ref(s, qkv, qkv, qkv, bias);
  Tensor qkv_t = be->upload(qkv, {batch, n, 3 * d});
  Tensor bias_t = with_bias ? be->upload(bias, {batch, n}) : Tensor();
  Tensor out = be->empty({batch, n, d});
  be->attention_fused(s, qkv_t, qkv_t, qkv_t, with_bias ? &bias_t : nullptr, out);
  expect_close(be->download(out), want);
}

TEST_F(OpenCLBertOps, AttentionFusedPackedQkvMatchesReference) {
  // n not a multiple of the query block or key tile; dh 16 and 64 (the model's), 24 (zero-padded
  // into the 32 kernel) and 128 (queries in local memory).
  for (int64_t n : {37, 70}) {
    check_attention(be, 2, n, 3, 16, false, 0, 20);
    check_attention(be, 2, n, 3, 16, true, 9, 21);
    check_attention(be, 2, n, 2, 64, false, 0, 22);
    check_attention(be, 2, n, 2, 64, true, 13, 23);
  }
  check_attention(be, 1, 5, 2, 24, true, 0, 24);
  check_attention(be, 2, 19, 1, 128, true, 4, 25);
}

TEST_F(OpenCLBertOps, AttentionFusedSeparateTensorsAndLogging) {
  // q, k, v in tensors of their own with leading dimensions wider than the heads.
  const int64_t batch = 2, n = 33, heads = 2, dh = 16;
  AttentionShape s;
  s.batch = batch;
  s.n = n;
  s.heads = heads;
  s.dh = dh;
  s.scale = 0.3f;
  s.ld_q = 40, s.q_col = 5;
  s.ld_k = 32, s.k_col = 0;
  s.ld_v = 36, s.v_col = 4;
  s.ld_out = 35;
  const Vec q = random_vec(batch * n * s.ld_q, 30), k = random_vec(batch * n * s.ld_k, 31),
            v = random_vec(batch * n * s.ld_v, 32);
  const Vec out0 = random_vec(batch * n * s.ld_out, 33);
  DVec want = attention_ref(s, q, k, v, {});
  // Columns past the heads keep what they held.
  for (int64_t r = 0; r < batch * n; ++r)
    for (int64_t c = heads * dh; c < s.ld_out; ++c) want[r * s.ld_out + c] = out0[r * s.ld_out + c];
  Tensor out = up(out0, {batch, n, s.ld_out});
  KernelLog* log = be->kernel_log();
  ASSERT_NE(log, nullptr);
  log->clear();
  be->attention_fused(s, up(q, {batch, n, s.ld_q}), up(k, {batch, n, s.ld_k}),
                      up(v, {batch, n, s.ld_v}), nullptr, out);
  be->synchronize();
  ASSERT_TRUE(log->kernels().count("attention_fused_d16"));
  EXPECT_EQ(log->kernels().at("attention_fused_d16").launches, 1u);
  expect_close(down(out), want);
}

TEST_F(OpenCLBertOps, AttentionFusedRejectsBadShapes) {
  AttentionShape s;
  s.batch = 1;
  s.n = 4;
  s.heads = 1;
  s.dh = 129;
  s.ld_q = s.ld_k = s.ld_v = s.ld_out = 129;
  Tensor x = be->empty({1, 4, 129});
  Tensor out = be->empty({1, 4, 129});
  try {
    be->attention_fused(s, x, x, x, nullptr, out);
    FAIL() << "expected std::invalid_argument for dh 129";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("dh = 129"), std::string::npos) << e.what();
  }
  s.dh = 64;
  s.q_col = 100;  // columns [100, 164) overflow ld 129
  EXPECT_THROW(be->attention_fused(s, x, x, x, nullptr, out), std::invalid_argument);
  s.q_col = 0;
  EXPECT_THROW(be->attention_fused(s, x, x, x, nullptr, x), std::invalid_argument);  // aliasing
}

}  // namespace
}  // namespace sb
