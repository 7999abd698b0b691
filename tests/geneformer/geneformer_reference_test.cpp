// The eager model against an independent double-precision BERT written from the formulas of
// docs/models.md (post-LN, padding keys masked, mean over gene tokens after layer L-1).
#include <gtest/gtest.h>

#include <cmath>

#include "harness/correctness.h"
#include "models/geneformer/workload.h"
#include "models/registry.h"

namespace sb::geneformer {
namespace {

using Mat = std::vector<double>;  // row-major [rows, cols]

Mat linear(const Mat& x, const Params& p, const std::string& name, int64_t in) {
  const HostTensor& w = p.at(name + ".weight");
  const HostTensor& b = p.at(name + ".bias");
  const int64_t out = w.shape[0], rows = static_cast<int64_t>(x.size()) / in;
  Mat y(static_cast<size_t>(rows * out));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t o = 0; o < out; ++o) {
      double s = b.values[o];
      for (int64_t k = 0; k < in; ++k) s += x[r * in + k] * w.values[o * in + k];
      y[r * out + o] = s;
    }
  return y;
}

void layer_norm(Mat& x, const Params& p, const std::string& name, int64_t d, double eps) {
  const auto& g = p.at(name + ".weight").values;
  const auto& b = p.at(name + ".bias").values;
  for (size_t r = 0; r < x.size() / d; ++r) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < d; ++i) mean += x[r * d + i] / d;
    for (int64_t i = 0; i < d; ++i) var += (x[r * d + i] - mean) * (x[r * d + i] - mean) / d;
    for (int64_t i = 0; i < d; ++i)
      x[r * d + i] = (x[r * d + i] - mean) / std::sqrt(var + eps) * g[i] + b[i];
  }
}

std::vector<double> reference_embedding(const Config& c, const Params& p, const Cells& cells) {
  const int64_t B = cells.batch, S = cells.tokens, D = c.hidden, H = c.heads, dh = c.head_dim();
  Mat h(static_cast<size_t>(B * S * D));
  const auto& word = p.at("embeddings.word_embeddings.weight").values;
  const auto& pos = p.at("embeddings.position_embeddings.weight").values;
  const auto& type = p.at("embeddings.token_type_embeddings.weight").values;
  for (int64_t r = 0; r < B * S; ++r)
    for (int64_t i = 0; i < D; ++i)
      h[r * D + i] = double(word[cells.ids[r] * D + i]) + pos[(r % S) * D + i] + type[i];
  layer_norm(h, p, "embeddings.LayerNorm", D, c.eps);
  for (int64_t l = 0; l < c.embedding_layer(); ++l) {
    const std::string pre = layer_prefix(l);
    const Mat q = linear(h, p, pre + "attention.self.query", D);
    const Mat k = linear(h, p, pre + "attention.self.key", D);
    const Mat v = linear(h, p, pre + "attention.self.value", D);
    Mat ctx(h.size(), 0.0);
    std::vector<double> w(static_cast<size_t>(S));
    for (int64_t b = 0; b < B; ++b)
      for (int64_t hh = 0; hh < H; ++hh)
        for (int64_t i = 0; i < S; ++i) {
          double mx = -1e300, sum = 0;
          for (int64_t j = 0; j < S; ++j) {
            if (cells.mask[b * S + j] < 0.5f) {
              w[j] = -1e300;
              continue;
            }
            double dot = 0;
            for (int64_t d = 0; d < dh; ++d)
              dot += q[(b * S + i) * D + hh * dh + d] * k[(b * S + j) * D + hh * dh + d];
            w[j] = dot / std::sqrt(double(dh));
            mx = std::max(mx, w[j]);
          }
          for (int64_t j = 0; j < S; ++j) sum += (w[j] = w[j] < -1e299 ? 0 : std::exp(w[j] - mx));
          for (int64_t j = 0; j < S; ++j)
            for (int64_t d = 0; d < dh; ++d)
              ctx[(b * S + i) * D + hh * dh + d] += w[j] / sum * v[(b * S + j) * D + hh * dh + d];
        }
    Mat a = linear(ctx, p, pre + "attention.output.dense", D);
    for (size_t i = 0; i < a.size(); ++i) a[i] += h[i];
    layer_norm(a, p, pre + "attention.output.LayerNorm", D, c.eps);
    Mat inter = linear(a, p, pre + "intermediate.dense", D);
    for (double& x : inter) x = std::max(x, 0.0);
    h = linear(inter, p, pre + "output.dense", c.intermediate);
    for (size_t i = 0; i < h.size(); ++i) h[i] += a[i];
    layer_norm(h, p, pre + "output.LayerNorm", D, c.eps);
  }
  std::vector<double> emb(static_cast<size_t>(B * D), 0.0);
  for (int64_t b = 0; b < B; ++b) {
    const double n = static_cast<double>(cells.length(b));
    for (int64_t s = 0; s < S; ++s)
      if (cells.mask[b * S + s] > 0.5f)
        for (int64_t i = 0; i < D; ++i) emb[b * D + i] += h[(b * S + s) * D + i] / n;
  }
  return emb;
}

TEST(GeneformerReference, EagerMatchesADoubleBert) {
  WorkloadOptions o;
  o.size = "tiny";
  GeneformerWorkload w(o, make_backend("cpu", ""));
  w.prepare(kEager);
  w.run(kEager);
  const std::vector<float> got = w.output(kEager);
  const std::vector<double> want = reference_embedding(w.config(), w.parameters(), w.cells());
  ASSERT_EQ(got.size(), want.size());
  double max_err = 0, max_ref = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    max_err = std::max(max_err, std::abs(got[i] - want[i]));
    max_ref = std::max(max_ref, std::abs(want[i]));
  }
  EXPECT_GT(max_ref, 0.05) << "the embedding is degenerate";
  EXPECT_LT(max_err, 2e-5 * std::max(1.0, max_ref));
  // Padding must not leak: cell 1 is shorter than the batch's length.
  EXPECT_LT(w.cells().length(1), w.cells().tokens);
}

}  // namespace
}  // namespace sb::geneformer
