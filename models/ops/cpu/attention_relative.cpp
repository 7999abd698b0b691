// Transformer-XL relative attention (Enformer's), streamed over key blocks with online softmax:
// no n x n buffer.
#include <omp.h>

#include <Eigen/Core>
#include <cmath>
#include <limits>

#include "models/ops/cpu/activation.h"
#include "models/ops/cpu/attention_relative.h"
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/op_times.h"
#include "models/ops/cpu/parallel.h"

namespace sb::cpu {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstStridedMap = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;
using StridedMap = Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>>;
using ConstRowVectorMap = Eigen::Map<const Eigen::RowVectorXf>;

}  // namespace

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

void CpuBackend::do_rel_attention_fused(const RelAttentionShape& s, const Tensor& q,
                                        const Tensor& k, const Tensor& v, const Tensor& rel_k,
                                        const Tensor& content_bias, const Tensor& pos_bias,
                                        Tensor& out) {
  const OpScope op_scope(op_log(),
                         [&] { return "rel_attention_fused " + std::to_string(out.numel()); });
  rel_attention_streaming(
      s, {f32_data(q, "attention q"), f32_data(k, "attention k"), f32_data(v, "attention v"),
          f32_data(rel_k, "attention rel_k"), f32_data(content_bias, "attention content_bias"),
          f32_data(pos_bias, "attention pos_bias"), f32_data(out, "attention out")});
}

}  // namespace sb::cpu
