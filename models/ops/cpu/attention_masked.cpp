// BERT's fused attention: multi-head attention with an additive key-padding bias, streamed over
// key blocks with online softmax, so no heads x n x n logits buffer exists.
//
// Each task is one (batch item, head, query block); it multiplies its scaled query block
// against one key block at a time (two Eigen GEMMs on strided maps of the packed tensors) and
// keeps per-query running max, sum and output accumulator. At f32 and tf32 (the CPU has no tf32)
// everything is fp32. At a reduced precision (bf16, or f16, which the CPU computes as bf16) the
// backend runs the attention on oneDNN's bf16 matmul instead (attention_masked_onednn.cpp: AMX
// tiles on Sapphire Rapids), in oneDNN builds on CPUs with bf16, unless
// STAGEBENCH_CPU_ATTENTION_ONEDNN=off: on the 16-core host Geneformer small's engine-fp16 took
// 9.61-9.84 ms with it (batched) against 11.26-11.48 ms without, two alternating rounds in one call
// (results/h200-host/gfamx38-2026-11-29/README.md). Else (or off) the two products of each block
// here run on bf16 operands with fp32 accumulation (attention_masked_bf16.cpp; softmax and
// accumulator fp32), where the build targets AVX512-BF16, the head width is even and
// STAGEBENCH_CPU_ATTENTION_BF16=on asks for it. Off by default: on the 16-core host (Sapphire
// Rapids) Geneformer small's engine-fp16 took 11.63 ms with it against 10.25 without, one process
// each in one call (results/h200-host/gfbf37-2026-11-29/README.md); on the 2-core EPYC VM it
// was 1.12x faster.
//
// The keys after an item's last unmasked key are skipped (STAGEBENCH_ATTENTION_TRIM, on by
// default, as on OpenCL): their weights exp(kMaskedLogit - max) are exactly 0, so only the
// order of the softmax sum's additions can differ. Items then cost in proportion to their
// lengths, so the tasks are handed out dynamically rather than in equal static shares.
#include "models/ops/cpu/attention_masked.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "models/ops/cpu/activation.h"
#include "models/ops/cpu/attention_masked_bf16.h"
#ifdef STAGEBENCH_HAVE_DNNL
#include "models/ops/cpu/attention_masked_onednn.h"
#endif
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/op_times.h"
#include "models/ops/cpu/parallel.h"
#include "models/ops/knobs.h"

namespace sb::cpu {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<RowMatrix>;
using ConstStridedMap = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;
using StridedMap = Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>>;

// One thread's working set, reused across its tasks: sized for full blocks.
struct Workspace {
  Workspace(int64_t qb, int64_t kb, int64_t dh)
      : q(qb * dh), scores(qb * kb), acc(qb * dh), row_max(qb), row_sum(qb) {}
  Eigen::VectorXf q, scores, acc;
  Eigen::ArrayXf row_max, row_sum;
};

}  // namespace

std::vector<int64_t> masked_key_ends(const AttentionShape& s, const float* key_bias, bool trim) {
  std::vector<int64_t> ends(static_cast<size_t>(s.batch), s.n);
  if (key_bias == nullptr || !trim) return ends;
  for (int64_t b = 0; b < s.batch; ++b) {
    int64_t end = s.n;
    while (end > 0 && key_bias[b * s.n + end - 1] <= kMaskedLogit) --end;
    ends[static_cast<size_t>(b)] = end > 0 ? end : s.n;
  }
  return ends;
}

namespace {

void attend_query_block(const AttentionShape& s, const MaskedAttentionData& d, int64_t b, int64_t h,
                        int64_t i0, int64_t bq, int64_t kb, int64_t key_end, Workspace& w) {
  const int64_t n = s.n, dh = s.dh;
  constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
  MatrixMap q(w.q.data(), bq, dh), acc(w.acc.data(), bq, dh);
  auto row_max = w.row_max.head(bq), row_sum = w.row_sum.head(bq);
  // The scale folds into the queries once rather than into every logit.
  q = s.scale * ConstStridedMap(d.q + (b * n + i0) * s.ld_q + s.q_col + h * dh, bq, dh,
                                Eigen::OuterStride<>(s.ld_q));
  row_max.setConstant(kMinusInf);
  row_sum.setZero();
  acc.setZero();

  for (int64_t j0 = 0; j0 < key_end; j0 += kb) {
    const int64_t bk = std::min(kb, key_end - j0);
    ConstStridedMap k(d.k + (b * n + j0) * s.ld_k + s.k_col + h * dh, bk, dh,
                      Eigen::OuterStride<>(s.ld_k));
    ConstStridedMap v(d.v + (b * n + j0) * s.ld_v + s.v_col + h * dh, bk, dh,
                      Eigen::OuterStride<>(s.ld_v));
    MatrixMap scores(w.scores.data(), bq, bk);
    scores.noalias() = q * k.transpose();
    // Online softmax, one contiguous row at a time (so Eigen's exp vectorizes): rescale what
    // came before to the new running max. The first block's rescale is exp(-inf) = 0 against
    // a zero accumulator; masked logits are finite (kMaskedLogit), so no inf - inf occurs.
    for (int64_t ii = 0; ii < bq; ++ii) {
      ArrayMap row(w.scores.data() + ii * bk, bk);
      if (d.key_bias != nullptr) row += ConstArrayMap(d.key_bias + b * n + j0, bk);
      const float new_max = std::max(row_max[ii], row.maxCoeff());
      const float rescale = std::exp(row_max[ii] - new_max);
      row = (row - new_max).exp();
      row_sum[ii] = row_sum[ii] * rescale + row.sum();
      if (rescale != 1.0f) acc.row(ii) *= rescale;
      row_max[ii] = new_max;
    }
    acc.noalias() += scores * v;
  }
  StridedMap out(d.out + (b * n + i0) * s.ld_out + h * dh, bq, dh, Eigen::OuterStride<>(s.ld_out));
  out = (acc.array().colwise() / row_sum).matrix();
}

}  // namespace

namespace {

// Runs every (item, head, query block) task with one Workspace per thread.
template <typename Workspace, typename Attend>
void run_tasks(const AttentionShape& s, int64_t query_block, int64_t key_block,
               const std::vector<int64_t>& ends, Attend attend) {
  const int64_t q_blocks = (s.n + query_block - 1) / query_block;
  const int64_t tasks = s.batch * s.heads * q_blocks;
  auto run = [&](int64_t task, Workspace& w) {
    const int64_t b = task / (s.heads * q_blocks), h = (task / q_blocks) % s.heads;
    const int64_t i0 = (task % q_blocks) * query_block;
    attend(b, h, i0, std::min(query_block, s.n - i0), ends[static_cast<size_t>(b)], w);
  };
  // Two GEMMs of query_block x n x dh per task, plus the exps: below the grain, or inside a
  // parallel region, one thread runs them all.
  const double work = static_cast<double>(tasks) * query_block * s.n * (4 * s.dh + 10);
  if (tasks <= 1 || omp_in_parallel() || omp_get_max_threads() <= 1 || work < kParallelGrain) {
    Workspace w(query_block, key_block, s.dh);
    for (int64_t task = 0; task < tasks; ++task) run(task, w);
    return;
  }
  // Eigen runs single-threaded inside the parallel region (it sees the enclosing team).
#pragma omp parallel
  {
    Workspace w(query_block, key_block, s.dh);
#pragma omp for schedule(dynamic)
    for (int64_t task = 0; task < tasks; ++task) run(task, w);
  }
}

}  // namespace

OneDnnAttention onednn_attention_mode() {
  return read_knob("STAGEBENCH_CPU_ATTENTION_ONEDNN", OneDnnAttention::batched,
                   {{"off", OneDnnAttention::off},
                    {"items", OneDnnAttention::items},
                    {"on", OneDnnAttention::items},
                    {"batched", OneDnnAttention::batched}});
}

bool masked_attention_uses_bf16(const AttentionShape& s) {
  const bool reduced = s.precision == Precision::bf16 || s.precision == Precision::f16;
  return reduced && masked_attention_bf16_built() && s.dh % 2 == 0 &&
         read_on_off_knob("STAGEBENCH_CPU_ATTENTION_BF16", false);
}

void masked_attention_streaming(const AttentionShape& s, const MaskedAttentionData& d,
                                int64_t query_block, int64_t key_block) {
  const std::vector<int64_t> ends =
      masked_key_ends(s, d.key_bias, read_on_off_knob("STAGEBENCH_ATTENTION_TRIM"));
  if (masked_attention_uses_bf16(s)) {
    run_tasks<MaskedAttentionBf16Workspace>(s, query_block, key_block, ends,
                                            [&](int64_t b, int64_t h, int64_t i0, int64_t bq,
                                                int64_t end, MaskedAttentionBf16Workspace& w) {
                                              attend_query_block_bf16(s, d, b, h, i0, bq, key_block,
                                                                      end, w);
                                            });
    return;
  }
  run_tasks<Workspace>(
      s, query_block, key_block, ends,
      [&](int64_t b, int64_t h, int64_t i0, int64_t bq, int64_t end, Workspace& w) {
        attend_query_block(s, d, b, h, i0, bq, key_block, end, w);
      });
}

void CpuBackend::do_attention_fused(const AttentionShape& s, const Tensor& q, const Tensor& k,
                                    const Tensor& v, const Tensor* key_bias, Tensor& out) {
  const OpScope op_scope(op_log(),
                         [&] { return "attention_fused " + std::to_string(out.numel()); });
  const float* bias =
      key_bias != nullptr ? f32_data(*key_bias, "attention_fused key_bias") : nullptr;
  const MaskedAttentionData d{f32_data(q, "attention_fused q"), f32_data(k, "attention_fused k"),
                              f32_data(v, "attention_fused v"), bias,
                              f32_data(out, "attention_fused out")};
#ifdef STAGEBENCH_HAVE_DNNL
  if (masked_attention_uses_onednn(s)) {
    Tensor scratch = do_empty({masked_attention_onednn_scratch(s)}, DType::f32);
    masked_attention_onednn(s, d,
                            masked_key_ends(s, bias, read_on_off_knob("STAGEBENCH_ATTENTION_TRIM")),
                            f32_data(scratch, "attention_fused scratch"), onednn_attention_mode());
    return;
  }
#endif
  masked_attention_streaming(s, d);
}

}  // namespace sb::cpu
