// BERT-style encoder pieces that are gathers and reductions: the embedding lookup, the
// key-padding bias of unfused attention logits, and the masked mean over tokens.
#include <stdexcept>
#include <string>

#include "models/ops/cpu/activation.h"
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/parallel.h"

namespace sb::cpu {

void CpuBackend::embedding(const Tensor& table, const Tensor& ids, const Tensor* rows, Tensor& y) {
  expect_rank(table, 2, "embedding", "table");
  expect_rank(ids, 2, "embedding", "ids");
  const int64_t vocab = table.dim(0), d = table.dim(1);
  const int64_t batch = ids.dim(0), seq = ids.dim(1), tokens = batch * seq;
  expect_numel(y, tokens * d, "embedding", "output");
  const float* rp = nullptr;
  if (rows != nullptr) {
    expect_rank(*rows, 2, "embedding", "rows");
    if (rows->dim(0) < seq || rows->dim(1) != d) {
      throw std::invalid_argument("cpu embedding: rows " + rows->shape_string() + " do not cover " +
                                  std::to_string(seq) + " positions of width " + std::to_string(d));
    }
    rp = f32_data(*rows, "embedding rows");
  }
  const float* tp = f32_data(table, "embedding table");
  const int32_t* ip = i32_data(ids, "embedding ids");
  float* yp = f32_data(y, "embedding output");

  // Checked up front: an exception must not leave an OpenMP region.
  for (int64_t t = 0; t < tokens; ++t) {
    if (ip[t] < 0 || ip[t] >= vocab) {
      throw std::out_of_range("cpu embedding: id " + std::to_string(ip[t]) + " at position " +
                              std::to_string(t) + " (item " + std::to_string(t / seq) + ", token " +
                              std::to_string(t % seq) + ") is outside the vocabulary of size " +
                              std::to_string(vocab));
    }
  }
  parallel_for(tokens, 2 * d, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      ConstArrayMap row(tp + ip[t] * d, d);
      if (rp != nullptr) {
        ArrayMap(yp + t * d, d) = row + ConstArrayMap(rp + (t % seq) * d, d);
      } else {
        ArrayMap(yp + t * d, d) = row;
      }
    }
  });
}

void CpuBackend::add_key_bias(Tensor& logits, const Tensor& key_bias, int64_t heads) {
  expect_rank(logits, 3, "add_key_bias", "logits");
  const int64_t groups = logits.dim(0), n = logits.dim(1);
  if (heads <= 0 || groups % heads != 0 || logits.dim(2) != n) {
    throw std::invalid_argument("cpu add_key_bias: logits " + logits.shape_string() +
                                " are not [B*heads, n, n] for heads = " + std::to_string(heads));
  }
  expect_numel(key_bias, (groups / heads) * n, "add_key_bias", "key_bias");
  float* lp = f32_data(logits, "add_key_bias logits");
  const float* kp = f32_data(key_bias, "add_key_bias key_bias");
  parallel_for(groups * n, n, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / (heads * n);
      ArrayMap(lp + r * n, n) += ConstArrayMap(kp + b * n, n);
    }
  });
}

void CpuBackend::masked_mean(const Tensor& x, const Tensor& weights, Tensor& y) {
  expect_rank(x, 3, "masked_mean", "input");
  const int64_t batch = x.dim(0), seq = x.dim(1), d = x.dim(2);
  expect_numel(weights, batch * seq, "masked_mean", "weights");
  expect_numel(y, batch * d, "masked_mean", "output");
  const float* xp = f32_data(x, "masked_mean input");
  const float* wp = f32_data(weights, "masked_mean weights");
  float* yp = f32_data(y, "masked_mean output");
  parallel_for(batch, 2 * seq * d, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      ArrayMap out(yp + b * d, d);
      out.setZero();
      float total = 0.0f;
      for (int64_t s = 0; s < seq; ++s) {
        const float w = wp[b * seq + s];
        if (w == 0.0f) continue;  // padding: skip the row entirely
        out += w * ConstArrayMap(xp + (b * seq + s) * d, d);
        total += w;
      }
      if (total != 0.0f) out *= 1.0f / total;
    }
  });
}

}  // namespace sb::cpu
