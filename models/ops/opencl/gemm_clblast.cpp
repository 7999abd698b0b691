// fp32 GEMMs through CLBlast, timed as one span per call (see event_log.h).
#include <clblast.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "models/ops/knobs.h"
#include "models/ops/opencl/clblast_status.h"
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {}  // namespace

void OpenCLBackend::linear_clblast(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep,
                                   int64_t m) {
  const bool residual_is_y = ep.residual && ep.residual->storage() == y.storage();
  // A residual that is y itself folds into the GEMM as beta = 1 (C = y), but only without an
  // activation: act must apply before the residual is added. With one, the GEMM writes a
  // scratch buffer so that y still holds the residual when the epilogue reads it.
  const bool residual_in_gemm = residual_is_y && ep.act == Act::none;
  const bool needs_scratch = residual_is_y && !residual_in_gemm;
  Tensor scratch = needs_scratch ? empty(y.shape()) : Tensor();
  Tensor& gemm_out = needs_scratch ? scratch : y;
  if (portable_gemm_) {
    GemmBatch g;  // y = x . W^T (+ y)
    g.m = m, g.n = w.n, g.k = w.k, g.lda = g.ldb = w.k, g.ldc = w.n;
    g.beta = residual_in_gemm ? 1.0f : 0.0f;
    g.a_offsets = g.b_offsets = g.c_offsets = {0};
    gemm_portable(g, x, w.data, gemm_out);
  } else {
    cl_command_queue queue = runtime_->queue()();
    events_.begin_span();
    const auto status = clblast::Gemm<float>(
        clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kYes,
        static_cast<size_t>(m), static_cast<size_t>(w.n), static_cast<size_t>(w.k), 1.0f,
        device_buffer(x)(), 0, static_cast<size_t>(w.k), device_buffer(w.data)(), 0,
        static_cast<size_t>(w.k), residual_in_gemm ? 1.0f : 0.0f, device_buffer(gemm_out)(), 0,
        static_cast<size_t>(w.n), &queue, nullptr);
    events_.end_span("clblast_gemm");
    check_clblast(status, "Gemm");
  }

  const Tensor* residual = residual_in_gemm ? nullptr : ep.residual;
  if (!ep.bias && ep.act == Act::none && !residual) return;
  const int64_t total = y.numel();
  launch("gemm_epilogue", quads(total), cl::NDRange(256), gemm_out, ep.bias, ep.bias ? 1 : 0,
         static_cast<int>(ep.act), residual, residual ? 1 : 0, w.n, total, y);
}

size_t OpenCLBackend::strided_groups(const GemmBatch& g) {
  const size_t count = g.a_offsets.size();
  for (size_t groups = 2; groups <= std::min<size_t>(64, count / 2); ++groups) {
    bool even = true;
    for (size_t r = 0; r < groups && even; ++r)
      for (const auto* offsets : {&g.a_offsets, &g.b_offsets, &g.c_offsets}) {
        std::vector<int64_t> cls;
        for (size_t i = r; i < count; i += groups) cls.push_back((*offsets)[i]);
        if (!evenly_strided(cls, nullptr)) {
          even = false;
          break;
        }
      }
    if (even) return groups;
  }
  return 0;
}

std::optional<OpenCLBackend::BatchedKernel> OpenCLBackend::forced_batched_kernel(
    const GemmBatch& g) {
  using enum BatchedKernel;
  // library: the library's untuned choice for every batch, ours for none (the path before
  // gemm_batched_small, for A/B runs).
  const BatchedKernel library = g.a_offsets.size() == 1 ? clblast_per_item : clblast_batched;
  const std::optional<BatchedKernel> forced =
      read_knob<std::optional<BatchedKernel>>("STAGEBENCH_GEMM_BATCHED", std::nullopt,
                                              {{"batched", clblast_batched},
                                               {"per_item", clblast_per_item},
                                               {"strided_batched", clblast_strided},
                                               {"strided_groups", clblast_strided_groups},
                                               {"small", small_direct},
                                               {"library", library}});
  const auto strided = [](const std::vector<int64_t>& offsets) {
    return evenly_strided(offsets, nullptr);
  };
  if (forced == small_direct &&
      (!item_strides(g.a_offsets) || !item_strides(g.b_offsets) || !item_strides(g.c_offsets)))
    throw std::invalid_argument(
        "STAGEBENCH_GEMM_BATCHED=small: these products' offsets have no two-level strides");
  if (forced == clblast_strided &&
      !(strided(g.a_offsets) && strided(g.b_offsets) && strided(g.c_offsets)))
    throw std::invalid_argument(
        "STAGEBENCH_GEMM_BATCHED=strided_batched: these products' offsets do not step evenly");
  if (forced == clblast_strided_groups && strided_groups(g) == 0)
    throw std::invalid_argument(
        "STAGEBENCH_GEMM_BATCHED=strided_groups: these products' offsets form no strided "
        "classes");
  return forced;
}

const char* OpenCLBackend::batched_kernel_name(BatchedKernel k) {
  switch (k) {
    case BatchedKernel::clblast_batched:
      return "clblast_gemm_batched";
    case BatchedKernel::clblast_per_item:
      return "clblast_gemm_per_item";
    case BatchedKernel::clblast_strided:
      return "clblast_gemm_strided_batched";
    case BatchedKernel::clblast_strided_groups:
      return "clblast_gemm_strided_groups";
    case BatchedKernel::small_direct:
      return "gemm_batched_small";
  }
  return "?";
}

void OpenCLBackend::gemm_batched_f32(BatchedKernel kernel, const GemmBatch& g, const Tensor& a,
                                     const Tensor& b, Tensor& c) {
  if (kernel == BatchedKernel::small_direct) return gemm_batched_small(g, a, b, c);
  if (portable_gemm_) return gemm_portable(g, a, b, c);
  const size_t count = g.a_offsets.size();
  const auto op = [](bool t) { return t ? clblast::Transpose::kYes : clblast::Transpose::kNo; };
  const auto m = static_cast<size_t>(g.m), n = static_cast<size_t>(g.n),
             k = static_cast<size_t>(g.k), lda = static_cast<size_t>(g.lda),
             ldb = static_cast<size_t>(g.ldb), ldc = static_cast<size_t>(g.ldc);
  cl_command_queue queue = runtime_->queue()();
  if (kernel == BatchedKernel::clblast_per_item) {
    events_.begin_span();
    for (size_t i = 0; i < count; ++i) {
      const auto status = clblast::Gemm<float>(
          clblast::Layout::kRowMajor, op(g.trans_a), op(g.trans_b), m, n, k, g.alpha,
          device_buffer(a)(), static_cast<size_t>(g.a_offsets[i]), lda, device_buffer(b)(),
          static_cast<size_t>(g.b_offsets[i]), ldb, g.beta, device_buffer(c)(),
          static_cast<size_t>(g.c_offsets[i]), ldc, &queue, nullptr);
      if (status != clblast::StatusCode::kSuccess) events_.end_span("clblast_gemm_per_item");
      check_clblast(status, "Gemm");
    }
    events_.end_span("clblast_gemm_per_item");
    return;
  }
  if (kernel == BatchedKernel::clblast_strided_groups) {
    const size_t groups = strided_groups(g);
    if (groups == 0) throw std::logic_error("gemm_batched: no strided classes for these offsets");
    events_.begin_span();
    for (size_t r = 0; r < groups; ++r) {
      const size_t items = (count - r + groups - 1) / groups;
      auto step = [&](const std::vector<int64_t>& o) {
        return items > 1 ? static_cast<size_t>(o[r + groups] - o[r]) : size_t{0};
      };
      const auto status = clblast::GemmStridedBatched<float>(
          clblast::Layout::kRowMajor, op(g.trans_a), op(g.trans_b), m, n, k, g.alpha,
          device_buffer(a)(), static_cast<size_t>(g.a_offsets[r]), lda, step(g.a_offsets),
          device_buffer(b)(), static_cast<size_t>(g.b_offsets[r]), ldb, step(g.b_offsets), g.beta,
          device_buffer(c)(), static_cast<size_t>(g.c_offsets[r]), ldc, step(g.c_offsets), items,
          &queue, nullptr);
      if (status != clblast::StatusCode::kSuccess) events_.end_span("clblast_gemm_strided_groups");
      check_clblast(status, "GemmStridedBatched");
    }
    events_.end_span("clblast_gemm_strided_groups");
    return;
  }
  if (kernel == BatchedKernel::clblast_strided) {
    int64_t sa = 0, sb = 0, sc = 0;
    if (!evenly_strided(g.a_offsets, &sa) || !evenly_strided(g.b_offsets, &sb) ||
        !evenly_strided(g.c_offsets, &sc))
      throw std::logic_error("gemm_batched: strided batch over offsets that do not step evenly");
    events_.begin_span();
    const auto status = clblast::GemmStridedBatched<float>(
        clblast::Layout::kRowMajor, op(g.trans_a), op(g.trans_b), m, n, k, g.alpha,
        device_buffer(a)(), static_cast<size_t>(g.a_offsets[0]), lda, static_cast<size_t>(sa),
        device_buffer(b)(), static_cast<size_t>(g.b_offsets[0]), ldb, static_cast<size_t>(sb),
        g.beta, device_buffer(c)(), static_cast<size_t>(g.c_offsets[0]), ldc,
        static_cast<size_t>(sc), count, &queue, nullptr);
    events_.end_span("clblast_gemm_strided_batched");
    check_clblast(status, "GemmStridedBatched");
    return;
  }
  const std::vector<size_t> ao(g.a_offsets.begin(), g.a_offsets.end());
  const std::vector<size_t> bo(g.b_offsets.begin(), g.b_offsets.end());
  const std::vector<size_t> co(g.c_offsets.begin(), g.c_offsets.end());
  const std::vector<float> alphas(count, g.alpha), betas(count, g.beta);
  events_.begin_span();
  const auto status = clblast::GemmBatched<float>(
      clblast::Layout::kRowMajor, op(g.trans_a), op(g.trans_b), m, n, k, alphas.data(),
      device_buffer(a)(), ao.data(), lda, device_buffer(b)(), bo.data(), ldb, betas.data(),
      device_buffer(c)(), co.data(), ldc, count, &queue, nullptr);
  events_.end_span("clblast_gemm_batched");
  check_clblast(status, "GemmBatched");
}

OpenCLBackend::BatchedKernel OpenCLBackend::tune_gemm_batched(const GemmBatch& g, const Tensor& a,
                                                              const Tensor& b, const Tensor& c) {
  constexpr int kTimedRuns = 5;  // after one untimed run (CLBlast compiles on first use)
  std::vector<BatchedKernel> candidates{BatchedKernel::clblast_batched,
                                        BatchedKernel::clblast_per_item};
  if (evenly_strided(g.a_offsets, nullptr) && evenly_strided(g.b_offsets, nullptr) &&
      evenly_strided(g.c_offsets, nullptr))
    candidates.push_back(BatchedKernel::clblast_strided);
  else if (strided_groups(g) > 0)
    candidates.push_back(BatchedKernel::clblast_strided_groups);
  if (small_products(g)) candidates.push_back(BatchedKernel::small_direct);
  // The candidates write a scratch copy of C, restored before every run when beta reads it.
  cl::CommandQueue& queue = runtime_->queue();
  Tensor scratch = do_empty(c.shape(), DType::f32);
  const size_t bytes = static_cast<size_t>(c.numel()) * sizeof(float);
  auto restore = [&] {
    queue.enqueueCopyBuffer(device_buffer(c), device_buffer(scratch), 0, 0, bytes);
  };
  restore();
  BatchedKernel best = BatchedKernel::clblast_batched;
  double best_seconds = std::numeric_limits<double>::infinity();
  for (const BatchedKernel k : candidates) {
    std::vector<double> seconds;
    try {
      for (int run = 0; run <= kTimedRuns; ++run) {
        if (g.beta != 0.0f && run > 0) restore();
        queue.finish();
        const auto t0 = std::chrono::steady_clock::now();
        gemm_batched_f32(k, g, a, b, scratch);
        queue.finish();
        const auto t1 = std::chrono::steady_clock::now();
        if (run > 0) seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
      }
    } catch (const std::runtime_error&) {
      queue.finish();
      continue;  // CLBlast refusing this shape for this routine: no candidate
    }
    std::nth_element(seconds.begin(), seconds.begin() + kTimedRuns / 2, seconds.end());
    if (seconds[kTimedRuns / 2] < best_seconds) {
      best_seconds = seconds[kTimedRuns / 2];
      best = k;
    }
  }
  queue.finish();  // the scratch buffer goes back to the pool only once nothing uses it
  return best;
}

std::vector<std::pair<std::string, std::string>> OpenCLBackend::autotune_choices() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, kernel] : autotuned_) out.emplace_back(key, batched_kernel_name(kernel));
  for (const auto& [key, tile] : pipe_tiles_)
    out.emplace_back(
        key, (tile.wgmma ? "wgmma 128x" : "pipelined 128x") + std::to_string(tile.bn) +
                 (tile.fast ? ", copies set up once" : "") +
                 (tile.pair ? ", two K tiles a barrier" : "") +
                 (tile.spread ? ", copies spread over the k steps" : "") +
                 (tile.clean == 1 ? ", steady loop without bounds" : "") +
                 (tile.clean == 2 ? ", steady loop's copies woven into the mma" : "") +
                 (tile.clean == 3 ? ", steady loop's copies and ldmatrix woven into the mma" : "") +
                 (tile.raster ? ", bands of " + std::to_string(tile.raster) + " tile rows" : "") +
                 (tile.double_buffered ? ", fragments double-buffered" : ""));
  for (const auto& [key, splits] : split_ks_)
    if (splits > 1)
      out.emplace_back(key, "wgmma 128x128, K in " + std::to_string(splits) + " slices");
  add_conv_igemm_choices(out);
  return out;
}

// So is one with a K of at most 16 (DeepFM's heads' data gradients, K 4 to 12): its tile's
// whole K is one step of the mma loop, behind two packs (3 products 75 us on gemm_f16_mma plus 6
// packs, results/h200/lead30-2026-11-28/README.md, small/).
// And (STAGEBENCH_THIN_GEMM=small, dfm35) one of at most 16 rows and a K of at most 128: DeepFM's
// heads' weight gradients (6, 4 and 12 x 1,030, K 64) paid a pack and a 128 x 128 wgmma tile of
// mostly padding, two launches of 5-8 us each (results/h200/dfm33-2026-11-29/timeline-split.*),
// for 6,180 to 12,360 sums of 64 terms.
bool OpenCLBackend::gemm_batched_mma_small(const GemmBatch& g) const {
  constexpr int64_t kThinK = 16, kFewRows = 16, kShortK = 128;
  return narrow_product(g) || g.k <= kThinK ||
         (thin_gemm_small_ && g.m <= kFewRows && g.k <= kShortK);
}

void OpenCLBackend::do_gemm_batched(const GemmBatch& g, const Tensor& a, const Tensor& b,
                                    Tensor& c) {
  // A narrow f16/tf32 product is ours too, in fp32 (which GemmBatch::precision allows): on the
  // mma kernels it would pay two packs, a 128 x 128 tile mostly padding and its K in one
  // work-group's loop (53-70 us for DeepFM's 64 x 6 heads with K 1,030 on an H200,
  // results/h200/lead30-2026-11-28/README.md), where gemm_batched_small is one launch.
  if (gemm_batched_on_mma(g) && gemm_batched_mma_small(g))
    return gemm_batched_small(g, a, b, c, fuses_gemm_bias(g) ? g.bias : nullptr);
  if (gemm_batched_on_mma(g)) return gemm_batched_mma(g, a, b, c);
  // Reduced precision needs the tensor cores; a batch of several items there runs in fp32
  // (gemm_batched_mma.cpp says why).
  if (g.precision != Precision::f32 &&
      !(has_mma() && (g.precision == Precision::f16 || g.precision == Precision::tf32)))
    throw std::invalid_argument(std::string("gemm_batched: ") + precision_name(g.precision) +
                                " products need the NVIDIA tensor-core kernels, which " +
                                device_name_ + " does not take (f32 only here)");
  if (const auto forced = forced_batched_kernel(g)) return gemm_batched_f32(*forced, g, a, b, c);
  // Many narrow products are ours on every device (gemm_small.cpp says why), the simulator's
  // included, so that it checks the kernel the models run.
  if (!g.autotune && small_products(g)) return gemm_batched_small(g, a, b, c);
  if (portable_gemm_) return gemm_portable(g, a, b, c);  // nothing to choose or tune
  // Untuned: one product is CLBlast's Gemm, as a framework calls it for one matrix product
  // (GemmBatched over a single item measured about 2x slower on an H100); several are one
  // GemmBatched call.
  if (!g.autotune) {
    const bool one = g.a_offsets.size() == 1;
    return gemm_batched_f32(one ? BatchedKernel::clblast_per_item : BatchedKernel::clblast_batched,
                            g, a, b, c);
  }
  // Autotune (op_types.h): the first call with a key times the candidates on scratch; then the
  // choice alone writes C, once.
  const std::string key = gemm_autotune_key(g);
  auto it = autotuned_.find(key);
  if (it == autotuned_.end()) it = autotuned_.emplace(key, tune_gemm_batched(g, a, b, c)).first;
  gemm_batched_f32(it->second, g, a, b, c);
}

}  // namespace sb
