// Enformer's attention pieces: attention pooling, the relative shift, and the streaming
// relative attention (online softmax, no n x n buffer).
#include <omp.h>

#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "models/ops/cpu/activation.h"
#include "models/ops/cpu/attention_kernels.h"
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/parallel.h"

namespace sb::cpu {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstStridedMap = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;
using StridedMap = Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>>;
using ConstRowVectorMap = Eigen::Map<const Eigen::RowVectorXf>;

struct PoolShape {
  int64_t batch, pairs, channels, len;
};

PoolShape check_pool(const Tensor& x, const Tensor& logits, const Tensor& y) {
  expect_rank(x, 3, "attention_pool", "input");
  const int64_t batch = x.dim(0), len = x.dim(1), c = x.dim(2);
  expect_numel(logits, x.numel(), "attention_pool", "logits");
  expect_rank(y, 3, "attention_pool", "output");
  if (y.dim(0) != batch || y.dim(1) != len / 2 || y.dim(2) != c) {
    throw std::invalid_argument("cpu attention_pool: output " + y.shape_string() +
                                " does not match input " + x.shape_string() + " pooled by 2");
  }
  return {batch, len / 2, c, len};
}

// Softmax over the pair (a0, a1), per channel: w0 = 1 / (1 + e^(a1-a0)), w1 likewise. Exact
// and overflow-safe (a huge exponent gives weight 0), each weight to full relative precision.
template <class A>
auto pair_weight(const A& mine, const A& other) {
  return (1.0f + (other - mine).exp()).inverse();
}

}  // namespace

void CpuBackend::attention_pool(const Tensor& x, const Tensor& logits, Tensor& y, bool one_pass) {
  const PoolShape s = check_pool(x, logits, y);
  const float* xp = f32_data(x, "attention_pool input");
  const float* lp = f32_data(logits, "attention_pool logits");
  float* yp = f32_data(y, "attention_pool output");
  const int64_t c = s.channels;
  // Row of pair p's first position in x/logits, and of its output.
  auto first = [&](int64_t p) { return ((p / s.pairs) * s.len + 2 * (p % s.pairs)) * c; };

  if (one_pass) {
    parallel_for(s.batch * s.pairs, 20 * c, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t o = first(p);
        ConstArrayMap a0(lp + o, c), a1(lp + o + c, c);
        ArrayMap(yp + p * c, c) = ConstArrayMap(xp + o, c) * pair_weight(a0, a1) +
                                  ConstArrayMap(xp + o + c, c) * pair_weight(a1, a0);
      }
    });
    return;
  }

  // The eager way: the softmax weights are a tensor of their own, read back by the sum.
  Tensor weights = empty({s.batch, s.len, c});
  float* wp = f32_data(weights, "attention_pool weights");
  parallel_for(s.batch * s.pairs, 20 * c, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t o = first(p);
      ConstArrayMap a0(lp + o, c), a1(lp + o + c, c);
      ArrayMap(wp + o, c) = pair_weight(a0, a1);
      ArrayMap(wp + o + c, c) = pair_weight(a1, a0);
    }
  });
  parallel_for(s.batch * s.pairs, 4 * c, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t o = first(p);
      ArrayMap(yp + p * c, c) = ConstArrayMap(xp + o, c) * ConstArrayMap(wp + o, c) +
                                ConstArrayMap(xp + o + c, c) * ConstArrayMap(wp + o + c, c);
    }
  });
}

void CpuBackend::rel_shift_add(Tensor& logits, const Tensor& rel) {
  expect_rank(logits, 3, "rel_shift_add", "logits");
  const int64_t groups = logits.dim(0), n = logits.dim(1);
  if (logits.dim(2) != n) {
    throw std::invalid_argument("cpu rel_shift_add: logits " + logits.shape_string() +
                                " are not [B*H, n, n]");
  }
  expect_numel(rel, groups * n * (2 * n - 1), "rel_shift_add", "rel");
  float* lp = f32_data(logits, "rel_shift_add logits");
  const float* rp = f32_data(rel, "rel_shift_add rel");
  // Row (g, i) of logits takes rel[g, i, n-1-i .. 2n-2-i]: one contiguous slice per row.
  parallel_for(groups * n, n, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t i = r % n;
      ArrayMap(lp + r * n, n) += ConstArrayMap(rp + r * (2 * n - 1) + (n - 1 - i), n);
    }
  });
}

void rel_attention_streaming(const RelAttentionShape& s, const RelAttentionData& d,
                             int64_t query_block, int64_t key_block) {
  const int64_t n = s.n, heads = s.heads, dk = s.dk, dv = s.dv;
  const int64_t ldk = heads * dk, ldv = heads * dv;
  const int64_t qb = query_block, kb = key_block, band_width = qb + kb - 1;
  const int64_t q_blocks = (n + qb - 1) / qb;
  const int64_t tasks = s.batch * heads * q_blocks;
  constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

  // One task per (batch, head, query block); Eigen runs single-threaded inside each.
#pragma omp parallel if (tasks > 1)
  {
    RowMatrix q_content(qb, dk), q_position(qb, dk), scores(qb, kb), band(qb, band_width),
        acc(qb, dv);
    Eigen::ArrayXf row_max(qb), row_sum(qb);
#pragma omp for schedule(dynamic)
    for (int64_t task = 0; task < tasks; ++task) {
      const int64_t b = task / (heads * q_blocks), h = (task / q_blocks) % heads;
      const int64_t i0 = (task % q_blocks) * qb, bq = std::min(qb, n - i0);
      ConstStridedMap q(d.q + (b * n + i0) * ldk + h * dk, bq, dk, Eigen::OuterStride<>(ldk));
      q_content.topRows(bq) = q.rowwise() + ConstRowVectorMap(d.content_bias + h * dk, dk);
      q_position.topRows(bq) = q.rowwise() + ConstRowVectorMap(d.pos_bias + h * dk, dk);
      row_max.head(bq).setConstant(kMinusInf);
      row_sum.head(bq).setZero();
      acc.topRows(bq).setZero();

      for (int64_t j0 = 0; j0 < n; j0 += kb) {
        const int64_t bk = std::min(kb, n - j0);
        ConstStridedMap k(d.k + (b * n + j0) * ldk + h * dk, bk, dk, Eigen::OuterStride<>(ldk));
        ConstStridedMap v(d.v + (b * n + j0) * ldv + h * dv, bk, dv, Eigen::OuterStride<>(ldv));
        // Distances j - i of this block pair span [j0 - (i0+bq-1), j0+bk-1 - i0]: a band of
        // bq+bk-1 rows of rel_k, all inside [0, 2n-2].
        const int64_t first_distance = (n - 1) + j0 - (i0 + bq - 1), width = bq + bk - 1;
        ConstStridedMap rel(d.rel_k + first_distance * ldk + h * dk, width, dk,
                            Eigen::OuterStride<>(ldk));
        auto s_blk = scores.topLeftCorner(bq, bk);
        s_blk.noalias() = q_content.topRows(bq) * k.transpose();
        band.topLeftCorner(bq, width).noalias() = q_position.topRows(bq) * rel.transpose();

        for (int64_t ii = 0; ii < bq; ++ii) {
          ArrayMap row(scores.data() + ii * kb, bk);
          // Query i0+ii and key j0+jj sit at band column jj - ii + bq - 1.
          row += ConstArrayMap(band.data() + ii * band_width + (bq - 1 - ii), bk);
          const float new_max = std::max(row_max[ii], row.maxCoeff());
          const float rescale = std::exp(row_max[ii] - new_max);
          row = (row - new_max).exp();
          row_sum[ii] = row_sum[ii] * rescale + row.sum();
          if (rescale != 1.0f) acc.row(ii) *= rescale;
          row_max[ii] = new_max;
        }
        acc.topRows(bq).noalias() += s_blk * v;
      }
      StridedMap out(d.out + (b * n + i0) * ldv + h * dv, bq, dv, Eigen::OuterStride<>(ldv));
      out = (acc.topRows(bq).array().colwise() / row_sum.head(bq)).matrix();
    }
  }
}

void CpuBackend::rel_attention_fused(const RelAttentionShape& s, const Tensor& q, const Tensor& k,
                                     const Tensor& v, const Tensor& rel_k,
                                     const Tensor& content_bias, const Tensor& pos_bias,
                                     Tensor& out) {
  if (s.batch <= 0 || s.n <= 0 || s.heads <= 0 || s.dk <= 0 || s.dv <= 0) {
    throw std::invalid_argument("cpu rel_attention_fused: every shape field must be positive");
  }
  const int64_t qk = s.batch * s.n * s.heads * s.dk, vo = s.batch * s.n * s.heads * s.dv;
  const char* op = "rel_attention_fused";
  expect_numel(q, qk, op, "q");
  expect_numel(k, qk, op, "k");
  expect_numel(v, vo, op, "v");
  expect_numel(out, vo, op, "out");
  expect_numel(rel_k, (2 * s.n - 1) * s.heads * s.dk, op, "rel_k");
  expect_numel(content_bias, s.heads * s.dk, op, "content_bias");
  expect_numel(pos_bias, s.heads * s.dk, op, "pos_bias");
  rel_attention_streaming(
      s, {f32_data(q, "attention q"), f32_data(k, "attention k"), f32_data(v, "attention v"),
          f32_data(rel_k, "attention rel_k"), f32_data(content_bias, "attention content_bias"),
          f32_data(pos_bias, "attention pos_bias"), f32_data(out, "attention out")});
}

}  // namespace sb::cpu
