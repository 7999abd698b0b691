// fp32 GEMMs on Eigen: linear with its epilogue fused per row block (oneDNN's matmul serves it
// instead where the build has oneDNN, unless a knob asks for Eigen), and batched strided GEMMs.
#include <omp.h>

#include <Eigen/Core>

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/ops/cpu/activation.h"
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/gemm_dnnl.h"
#include "models/ops/cpu/gemm_small.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/op_times.h"
#include "models/ops/cpu/parallel.h"

namespace sb::cpu {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<RowMatrix>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;
using StridedMap = Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>>;
using ConstStridedMap = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;

// Rows per block of the fused-epilogue GEMM: the block's outputs (rows x N floats) stay in L2
// while the epilogue runs over them. Measured at M=16k, K=1k, N=384 on the 2-core VM.
constexpr int64_t kEpilogueRows = 256;
// Fewer rows than this a thread, and a block's GEMM is mostly the packing of the weight it
// shares with every other block: the epilogue then runs as a pass of its own instead.
constexpr int64_t kMinEpilogueRows = 64;

int64_t round_up(int64_t v, int64_t multiple) {
  return (v + multiple - 1) / multiple * multiple;
}

// y_row = residual_row + act(t_row + bias) over n values; t_row may be y_row, and so may
// residual_row (the in-place residual add).
void finish_row(const float* t, const float* bias, Act act, const float* residual, float* y,
                int64_t n) {
  ConstArrayMap tv(t, n);
  ArrayMap yv(y, n);
  auto store = [&](const auto& z) {
    if (residual != nullptr) {
      yv = ConstArrayMap(residual, n) + z;
    } else {
      yv = z;
    }
  };
  if (bias != nullptr) {
    with_activation(act, tv + ConstArrayMap(bias, n), store);
  } else {
    with_activation(act, tv, store);
  }
}

}  // namespace

void CpuBackend::linear_f32(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep) {
#ifdef STAGEBENCH_HAVE_DNNL
  if (onednn_linear_) return dnnl_->linear(x, w, y, ep);
#endif
  const int64_t n = w.n, k = w.k, m = x.numel() / k;
  const float* bias = ep.bias != nullptr ? f32_data(*ep.bias, "linear bias") : nullptr;
  const float* residual =
      ep.residual != nullptr ? f32_data(*ep.residual, "linear residual") : nullptr;
  ConstMatrixMap xm(f32_data(x, "linear input"), m, k);
  ConstMatrixMap wm(f32_data(w.data, "linear weight"), n, k);
  float* yp = f32_data(y, "linear output");

  if (bias == nullptr && ep.act == Act::none && residual == nullptr) {
    MatrixMap(yp, m, n).noalias() = xm * wm.transpose();  // Eigen threads this GEMM itself
    return;
  }

  const bool residual_is_y = residual == yp;
  const int64_t threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  // Rows [r0, r1) of y from their GEMM results, which start at t.
  auto finish_rows = [&](const float* t, int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      finish_row(t + (r - r0) * n, bias, ep.act, residual ? residual + r * n : nullptr, yp + r * n,
                 n);
  };
  if (threads > 1 && m < threads * kMinEpilogueRows) {
    // Too few rows to give every thread a block worth packing the weight for: Eigen threads the
    // one GEMM, then the epilogue is a pass of its own over the (small) output.
    Tensor scratch = residual_is_y ? do_empty({m, n}, DType::f32) : Tensor();
    float* t = residual_is_y ? f32_data(scratch, "linear scratch") : yp;
    MatrixMap(t, m, n).noalias() = xm * wm.transpose();
    const int64_t cost = ep.act == Act::none || ep.act == Act::relu ? kCheapOp : kExpOp;
    parallel_for(m, n * cost, [&](int64_t r0, int64_t r1) { finish_rows(t + r0 * n, r0, r1); });
    return;
  }
  // Row blocks in parallel, Eigen single-threaded inside each (it sees the parallel region).
  // A block's GEMM lands in y, or in a per-thread tile when y is also the residual. The blocks
  // are as many as the threads times the waves of at most kEpilogueRows rows, so that no wave
  // leaves threads idle (64 blocks of 256 rows at 16 threads, not 4 left over for a 5th wave).
  const int64_t waves = (m + threads * kEpilogueRows - 1) / (threads * kEpilogueRows);
  const int64_t rows_per_block = round_up((m + threads * waves - 1) / (threads * waves), 16);
  const int64_t blocks = (m + rows_per_block - 1) / rows_per_block;
#pragma omp parallel if (blocks > 1)
  {
    RowMatrix tile(residual_is_y ? rows_per_block : 0, n);
#pragma omp for schedule(static)
    for (int64_t blk = 0; blk < blocks; ++blk) {
      const int64_t r0 = blk * rows_per_block;
      const int64_t rows = std::min(rows_per_block, m - r0);
      float* t = residual_is_y ? tile.data() : yp + r0 * n;
      MatrixMap(t, rows, n).noalias() = xm.middleRows(r0, rows) * wm.transpose();
      finish_rows(t, r0, r0 + rows);
    }
  }
}

const char* CpuBackend::batched_kernel_name(BatchedKernel k) {
  switch (k) {
    case BatchedKernel::eigen_across_items:
      return "eigen_across_items";
    case BatchedKernel::eigen_inside_gemm:
      return "eigen_inside_gemm";
    case BatchedKernel::onednn_matmul:
      return "onednn_matmul";
    case BatchedKernel::small_items:
      return "small_items";
  }
  return "?";
}

// Tiny items: plain loops (gemm_small.h). Enough items to share out: one thread per item, Eigen
// single-threaded inside (no barrier per GEMM). Fewer items than threads: oneDNN's f32 matmul
// (brgemm) when the build has it (unless STAGEBENCH_CPU_F32_GEMM=eigen), one batched call that
// shares the items' rows among the threads, else Eigen threading each GEMM in turn. On the
// 16-core host Eigen ran DeepFM's single products of a few hundred rows at 2-6 GFLOP/s where N
// is 12 (its heads) and oneDNN the wide ones at 630-1,160 (results/h200-host/cpu30-2026-11-28);
// Eigen ran Enformer's four heads' products (4 x 256x64x511) at 130-140 (srv28-2026-11-28).
CpuBackend::BatchedKernel CpuBackend::default_batched_kernel(const GemmBatch& g) const {
  const size_t count = g.a_offsets.size();
  const size_t threads = static_cast<size_t>(omp_get_max_threads());
  const double flops = 2.0 * g.m * g.n * g.k;
  if (cpu30_f32_kernels_ && small_items(g)) return BatchedKernel::small_items;
#ifdef STAGEBENCH_HAVE_DNNL
  // An attention's items (b * n * ld + h * dh) as one 4-D oneDNN matmul (DnnlGemm::takes_as_grid,
  // unless STAGEBENCH_CPU_BATCHED_GRID=off): Eigen ran Geneformer small's 16 of them one a
  // thread at 61-63% of the host's f32 ceiling (gfcpu37), oneDNN's linears at 74-84%.
  if (dnnl_ && cpu30_f32_kernels_ && count > 1 && dnnl_->takes_as_grid(g))
    return BatchedKernel::onednn_matmul;
#endif
  if (dnnl_ && cpu30_f32_kernels_ && (count == 1 || count < threads))
    return BatchedKernel::onednn_matmul;
  return count >= threads && count > 1 && flops * count > kParallelGrain
             ? BatchedKernel::eigen_across_items
             : BatchedKernel::eigen_inside_gemm;
}

void CpuBackend::gemm_batched_f32(BatchedKernel kernel, const GemmBatch& g, const float* ap,
                                  const float* bp, float* cp, const float* bias) {
  if (kernel == BatchedKernel::onednn_matmul) {
#ifdef STAGEBENCH_HAVE_DNNL
    return dnnl_->gemm_batched_f32(g, ap, bp, cp, bias);
#else
    throw std::logic_error("gemm_batched: onednn_matmul without oneDNN");
#endif
  }
  if (bias != nullptr) throw std::logic_error("gemm_batched: a bias only on oneDNN's matmul");
  if (kernel == BatchedKernel::small_items) return gemm_small_items(g, ap, bp, cp);
  const size_t count = g.a_offsets.size();
  const int64_t a_rows = g.trans_a ? g.k : g.m, a_cols = g.trans_a ? g.m : g.k;
  const int64_t b_rows = g.trans_b ? g.n : g.k, b_cols = g.trans_b ? g.k : g.n;
  // C = alpha op(A) op(B) + beta C; beta = 0 never reads C (it may hold NaN).
  auto store = [&](StridedMap& cm, const auto& product) {
    if (g.beta == 0.0f) {
      cm.noalias() = g.alpha * product;
    } else {
      if (g.beta != 1.0f) cm *= g.beta;
      cm.noalias() += g.alpha * product;
    }
  };
  auto item = [&](size_t i) {
    ConstStridedMap am(ap + g.a_offsets[i], a_rows, a_cols, Eigen::OuterStride<>(g.lda));
    ConstStridedMap bm(bp + g.b_offsets[i], b_rows, b_cols, Eigen::OuterStride<>(g.ldb));
    StridedMap cm(cp + g.c_offsets[i], g.m, g.n, Eigen::OuterStride<>(g.ldc));
    if (g.trans_a) {
      if (g.trans_b) {
        store(cm, am.transpose() * bm.transpose());
      } else {
        store(cm, am.transpose() * bm);
      }
    } else if (g.trans_b) {
      store(cm, am * bm.transpose());
    } else {
      store(cm, am * bm);
    }
  };
  if (kernel == BatchedKernel::eigen_across_items && count > 1) {
#pragma omp parallel for schedule(dynamic)
    for (size_t i = 0; i < count; ++i) item(i);
  } else {
    for (size_t i = 0; i < count; ++i) item(i);
  }
}

CpuBackend::BatchedKernel CpuBackend::tune_gemm_batched(const GemmBatch& g, const float* a,
                                                        const float* b, const Tensor& c) {
  constexpr int kTimedRuns = 5;  // after one untimed run (first-touch, primitive creation)
  std::vector<BatchedKernel> candidates{BatchedKernel::eigen_across_items,
                                        BatchedKernel::eigen_inside_gemm};
#ifdef STAGEBENCH_HAVE_DNNL
  candidates.push_back(BatchedKernel::onednn_matmul);
#endif
  if (small_items(g)) candidates.push_back(BatchedKernel::small_items);
  // The candidates write a scratch copy of C, restored before every run when beta reads it.
  const float* cp = f32_data(c, "gemm_batched C");
  Tensor scratch = do_empty(c.shape(), DType::f32);
  float* sp = f32_data(scratch, "gemm_batched autotune scratch");
  const size_t elements = static_cast<size_t>(c.numel());
  std::copy_n(cp, elements, sp);
  BatchedKernel best = default_batched_kernel(g);
  double best_seconds = std::numeric_limits<double>::infinity();
  for (const BatchedKernel k : candidates) {
    std::vector<double> seconds;
    try {
      for (int run = 0; run <= kTimedRuns; ++run) {
        if (g.beta != 0.0f && run > 0) std::copy_n(cp, elements, sp);
        const auto t0 = std::chrono::steady_clock::now();
        gemm_batched_f32(k, g, a, b, sp);
        const auto t1 = std::chrono::steady_clock::now();
        if (run > 0) seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
      }
    } catch (const std::exception&) {
      continue;  // a candidate that cannot take this shape (oneDNN refusing it) is no candidate
    }
    std::nth_element(seconds.begin(), seconds.begin() + kTimedRuns / 2, seconds.end());
    if (seconds[kTimedRuns / 2] < best_seconds) {
      best_seconds = seconds[kTimedRuns / 2];
      best = k;
    }
  }
  return best;
}

std::vector<std::pair<std::string, std::string>> CpuBackend::autotune_choices() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, kernel] : autotuned_) out.emplace_back(key, batched_kernel_name(kernel));
  return out;
}

// The bias is this backend's to add only for products on oneDNN's matmul whose C it writes
// as alpha op(A) op(B) (alpha 1, beta 0, one item): there its epilogue adds it while C's tile is
// in registers, where an affine_channels pass after it read and wrote all of C again (DeepFM's
// fp32 step: 0.11 ms over its linear layers on the 16-core host, cpu36). Autotuned f32 calls keep
// the pass: their kernel is only known after tuning.
bool CpuBackend::fuses_gemm_bias(const GemmBatch& g) const {
  if (!gemm_bias_ || dnnl_ == nullptr || g.bias == nullptr || g.a_offsets.size() != 1 ||
      g.alpha != 1.0f || g.beta != 0.0f)
    return false;
#ifdef STAGEBENCH_HAVE_DNNL
  if (g.precision == Precision::bf16) return bf16_on_onednn(g);
#endif
  return g.precision == Precision::f32 && !g.autotune &&
         default_batched_kernel(g) == BatchedKernel::onednn_matmul;
}

void CpuBackend::do_gemm_batched(const GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c) {
  const OpScope op_scope(op_log(), [&] {
    return "gemm_batched " + std::to_string(g.a_offsets.size()) + "x " + gemm_shape(g.m, g.k, g.n);
  });
  const float* bias = fuses_gemm_bias(g) ? f32_data(*g.bias, "gemm_batched bias") : nullptr;
#ifdef STAGEBENCH_HAVE_DNNL
  if (g.precision == Precision::bf16) return gemm_batched_bf16(g, a, b, c, bias);
#endif
  if (g.precision != Precision::f32)  // the front asked unsupported_reason(): unreachable
    throw std::invalid_argument(std::string("gemm_batched: the cpu backend has no ") +
                                precision_name(g.precision) + " kernel");
  const float* ap = f32_data(a, "gemm_batched A");
  const float* bp = f32_data(b, "gemm_batched B");
  float* cp = f32_data(c, "gemm_batched C");
  if (!g.autotune) return gemm_batched_f32(default_batched_kernel(g), g, ap, bp, cp, bias);
  // Autotune (op_types.h): the first call with a key times the candidates on scratch; then the
  // choice alone writes C, once.
  const std::string key = gemm_autotune_key(g);
  auto it = autotuned_.find(key);
  if (it == autotuned_.end()) it = autotuned_.emplace(key, tune_gemm_batched(g, ap, bp, c)).first;
  gemm_batched_f32(it->second, g, ap, bp, cp);
}

}  // namespace sb::cpu
