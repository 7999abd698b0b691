// What only the CPU backend has: its precisions, aligned host memory, int8 quantization,
// parallel_for's splits and the batched products on oneDNN (the attention kernels:
// cpu_attention_test.cpp).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#ifdef STAGEBENCH_HAVE_DNNL
#include <dnnl.hpp>
#endif

#include "models/ops/cpu/bf16_pack.h"
#include "models/ops/cpu/cpu_backend.h"
#include "models/ops/cpu/gemm_dnnl.h"
#include "models/ops/cpu/gemm_small.h"
#include "models/ops/cpu/host_pool.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/parallel.h"
#include "models/ops/cpu/quantize.h"
#include "tests/ops/op_case.h"
#include "tests/ops/test_env.h"

namespace sb::testing {
namespace {

// parallel_for's two splits (STAGEBENCH_CPU_PARALLEL_SPLIT) hand every index of [0, n) to
// exactly one call, in non-empty ranges, at any team size: the even split's ranges come from
// the team it got, its 16-item alignment and its walk in the grain's chunks must still cover the
// ends. Sizes around the grain (inline), the even split's threshold and uneven remainders.
TEST(OpsCpu, ParallelSplitsCoverEveryIndexOnce) {
  const int saved = omp_get_max_threads();
  for (const sb::cpu::ParallelSplit split :
       {sb::cpu::ParallelSplit::grain, sb::cpu::ParallelSplit::even})
    for (const int threads : {1, 2, 3, 5, 15})
      for (const int64_t n : {int64_t{1}, int64_t{17}, int64_t{4095}, int64_t{32769},
                              int64_t{262144}, int64_t{1000003}})
        for (const int64_t cost : {int64_t{1}, int64_t{4}, int64_t{768}}) {
          omp_set_num_threads(threads);
          std::vector<int> seen(static_cast<size_t>(n), 0);
          int bad_ranges = 0;
          sb::cpu::parallel_for_as(split, n, cost, [&](int64_t b, int64_t e) {
            if (b < 0 || e > n || b >= e) {
#pragma omp atomic
              ++bad_ranges;
              return;
            }
            for (int64_t i = b; i < e; ++i) {
#pragma omp atomic
              ++seen[static_cast<size_t>(i)];
            }
          });
          EXPECT_EQ(bad_ranges, 0) << n << " " << cost << " " << threads;
          const auto wrong = std::count_if(seen.begin(), seen.end(), [](int c) { return c != 1; });
          EXPECT_EQ(wrong, 0) << "split " << static_cast<int>(split) << ", n " << n << ", cost "
                              << cost << ", " << threads << " threads";
        }
  omp_set_num_threads(saved);
}

TEST(OpsCpu, PrecisionsAndAlignedTrackedMemory) {
  auto be = make_cpu_backend();
  EXPECT_EQ(be->name(), "cpu");
  EXPECT_EQ(be->unsupported_reason(Precision::f32), "");
  EXPECT_NE(be->unsupported_reason(Precision::tf32), "");
  EXPECT_NE(be->unsupported_reason(Precision::f16), "");
  EXPECT_THROW(be->prepare_weight(random_vec(6, 2), 2, 3, Precision::tf32), std::invalid_argument);
  EXPECT_EQ(be->memory().device, nullptr);
  const Tensor t = be->empty({3, 100});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.storage_as<cpu::HostStorage>().data()) % 64, 0u);
}

TEST(OpsCpu, QuantizeRoundTripsWithinHalfAStep) {
  const int64_t n = 5, k = 33;
  Vec w = random_vec(n * k, 14, -3, 3);
  std::fill_n(w.begin() + k, k, 0.0f);  // an all-zero channel keeps a usable scale
  std::vector<int8_t> qw(n * k);
  Vec scales(n);
  cpu::quantize_weights_s8(w.data(), n, k, qw.data(), scales.data());
  EXPECT_EQ(scales[1], 1.0f);
  for (int64_t i = 0; i < n * k; ++i)
    EXPECT_LE(std::abs(w[i] - scales[i / k] * qw[i]), scales[i / k] * 0.5f + 1e-6f);
  Vec x = random_vec(1000, 15, -0.5, 4);
  x[7] = 0.0f;
  std::vector<uint8_t> qx(x.size());
  const auto a = cpu::quantize_activations_u8(x.data(), int64_t(x.size()), qx.data());
  EXPECT_EQ(qx[7], a.zero_point);  // zero is exact
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_LE(std::abs(x[i] - a.scale * (int(qx[i]) - a.zero_point)), a.scale * 0.5f + 1e-5f);
}

TEST(OpsCpu, QuantizeRangeClampsOutsideTheCalibratedRange) {
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

// linear's fused epilogue splits its rows by the thread count (one GEMM and a pass of its own
// below 64 rows a thread, balanced row blocks above): every split, the in-place residual
// included, gives the rows their own results. 16 threads, as on the 16-core host, whatever
// this machine has; the row counts cross both paths and leave remainders.
void check_linear_epilogue_at_every_row_split() {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(16);
  auto be = make_cpu_backend();
  const int64_t k = 24, n = 40;
  const Vec w = random_vec(n * k, 31), bias = random_vec(n, 32);
  const Weight wt = be->prepare_weight(w, n, k, Precision::f32);
  const Tensor bt = be->upload(bias, {n});
  for (const int64_t m : {int64_t{37}, int64_t{1000}, int64_t{1100}, int64_t{4133}}) {
    const Vec x = random_vec(m * k, 33), r = random_vec(m * n, 34);
    Vec want(m * n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = bias[j];
        for (int64_t l = 0; l < k; ++l) acc += double(x[i * k + l]) * w[j * k + l];
        want[i * n + j] = float(r[i * n + j] + std::max(acc, 0.0));
      }
    const Tensor xt = be->upload(x, {m, k});
    Tensor y = be->upload(Vec(m * n, 0.f), {m, n}), res = be->upload(r, {m, n});
    be->linear(xt, wt, y, {&bt, Act::relu, &res});
    be->linear(xt, wt, res, {&bt, Act::relu, &res});  // the residual is the output
    for (const Tensor* t : {&y, &res}) {
      const Vec got = be->download(*t);
      for (int64_t i = 0; i < m * n; ++i)
        ASSERT_NEAR(got[i], want[i], 1e-4f) << "m " << m << ", element " << i;
    }
  }
  omp_set_num_threads(saved);
}

// On oneDNN's matmul (the default with oneDNN) and on Eigen's row blocks
// (STAGEBENCH_CPU_F32_LINEAR=eigen), whose splits the row counts cover.
TEST(OpsCpu, LinearEpilogueAtEveryRowSplit) {
  for (const char* kernel : {"", "eigen"}) {
    SCOPED_TRACE(std::string("kernel '") + kernel + "'");
    if (*kernel) setenv("STAGEBENCH_CPU_F32_LINEAR", kernel, 1);
    check_linear_epilogue_at_every_row_split();
    unsetenv("STAGEBENCH_CPU_F32_LINEAR");
  }
}

// A freed large block serves the next request of its size; small ones and a pool without room
// go back to the C library.
TEST(OpsCpu, HostPoolReusesLargeBlocksUpToItsCap) {
  const size_t big = cpu::HostPool::kMinBytes;
  cpu::HostPool pool(2 * big);
  void* a = pool.take(big, 64);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  pool.give(a, big);
  EXPECT_EQ(pool.cached_bytes(), big);
  EXPECT_EQ(pool.take(big, 64), a);
  EXPECT_EQ(pool.reused(), 1u);
  void* b = pool.take(big, 64);
  void* c = pool.take(big, 64);
  void* d = pool.take(big, 64);
  pool.give(a, big), pool.give(b, big), pool.give(c, big);  // the third finds no room
  EXPECT_EQ(pool.cached_bytes(), 2 * big);
  pool.give(d, big);
  void* small = pool.take(64, 64);
  pool.give(small, 64);
  EXPECT_EQ(pool.cached_bytes(), 2 * big);
  cpu::HostPool off(0);
  void* e = off.take(big, 64);
  off.give(e, big);
  EXPECT_EQ(off.cached_bytes(), 0u);
}

// The calibrated int8 GEMM is the int8 arithmetic emulated exactly in double, clamp included.
TEST(OpsCpu, CalibratedInt8LinearIsExactlyTheEmulatedArithmetic) {
  auto be = make_cpu_backend();
  if (auto reason = be->unsupported_reason(Precision::int8); !reason.empty())
    GTEST_SKIP() << reason;
  const int64_t m = 37, k = 45, n = 29;
  const Vec x = random_vec(m * k, 30, -2, 2), w = random_vec(n * k, 31), bias = random_vec(n, 32);
  const Tensor xt = be->upload(x, {m, k}), bt = be->upload(bias, {n});
  const Weight dynamic = be->prepare_weight(w, n, k, Precision::int8);
  Tensor y_dynamic = be->empty({m, n});
  be->linear(xt, dynamic, y_dynamic, {&bt});
  // Calibrated to exactly the input's own range: the very same quantization.
  Weight same = dynamic;
  same.input_lo = *std::min_element(x.begin(), x.end());
  same.input_hi = *std::max_element(x.begin(), x.end());
  Tensor y_same = be->empty({m, n});
  be->linear(xt, same, y_same, {&bt});
  EXPECT_EQ(be->download(y_same), be->download(y_dynamic));

  const float lo = -1.0f, hi = 1.25f;
  Weight narrow = dynamic;
  narrow.input_lo = lo, narrow.input_hi = hi;
  Tensor y = be->empty({m, n});
  be->linear(xt, narrow, y, {&bt});
  std::vector<int8_t> qw(n * k);
  Vec w_scales(n);
  cpu::quantize_weights_s8(w.data(), n, k, qw.data(), w_scales.data());
  std::vector<uint8_t> qx(m * k);
  const auto a = cpu::quantize_activations_u8_range(x.data(), m * k, lo, hi, qx.data());
  DVec emulated(m * n), unclamped(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t acc = 0;
      double plain = 0;
      for (int64_t c = 0; c < k; ++c) {
        acc += int64_t(qx[i * k + c] - a.zero_point) * qw[j * k + c];
        plain += double(x[i * k + c]) * w[j * k + c];
      }
      emulated[i * n + j] = double(a.scale) * w_scales[j] * double(acc) + bias[j];
      unclamped[i * n + j] = plain + bias[j];
    }
  const Vec got = be->download(y);
  EXPECT_EQ(compare({"emulated", got, emulated, Precision::f32, 1e-5}), "");
  EXPECT_NE(compare({"unclamped", got, unclamped, Precision::f32, 0.1}), "");  // clamped
}

#ifdef STAGEBENCH_HAVE_DNNL
// An attention's f32 batched products, whose items (b * n * ld + h * dh) have no common step,
// as one 4-D oneDNN matmul (DnnlGemm::takes_as_grid): the scores Q K^T (trans_b, C evenly
// stepped) and the weighted sum P V (B and C on the grid, beta = 1 and alpha 0.5 so that both
// are read), through the backend and through DnnlGemm directly, against the reference; a list
// with no grid (one offset out of place) is not taken, nor any with the knob off.
TEST(OpsCpu, BatchedGemmOnAGridAsOneMatmul) {
  const int64_t batch = 2, heads = 3, n = 19, dh = 8, ld = 3 * heads * dh + 5;
  GemmBatch scores{n, n, dh, true, 0.35f, ld, ld, n, {}, {}, {}};
  GemmBatch mix{n, dh, n, false, 0.5f, n, ld, ld, {}, {}, {}};
  mix.beta = 1.0f;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t item = b * heads + h;
      scores.a_offsets.push_back(b * n * ld + h * dh);
      scores.b_offsets.push_back(b * n * ld + heads * dh + h * dh);
      scores.c_offsets.push_back(item * n * n);
      mix.a_offsets.push_back(item * n * n);
      mix.b_offsets.push_back(b * n * ld + 2 * heads * dh + h * dh);
      mix.c_offsets.push_back(b * n * ld + h * dh);
    }
  cpu::DnnlGemm dnnl(std::make_shared<AllocationTracker>());
  if (!dnnl.takes_as_grid(scores)) GTEST_SKIP() << "no optimized 4-D f32 matmul in oneDNN here";
  EXPECT_TRUE(dnnl.takes_as_grid(mix));
  GemmBatch broken = mix;
  broken.b_offsets[4] += 1;
  EXPECT_FALSE(dnnl.takes_as_grid(broken));
  {
    const ScopedEnv off("STAGEBENCH_CPU_BATCHED_GRID", "off");
    EXPECT_FALSE(dnnl.takes_as_grid(scores));
  }
  const Vec x = random_vec(batch * n * ld, 90);
  const Vec s0 = random_vec(batch * heads * n * n, 91);
  const Vec y0 = random_vec(batch * n * ld, 92);
  auto be = make_cpu_backend();
  for (const GemmBatch* g : {&scores, &mix}) {
    const bool is_mix = g == &mix;
    const Vec& a = is_mix ? s0 : x;
    const Vec& c0 = is_mix ? y0 : s0;
    const DVec want = gemm_batched_ref(*g, a, x, c0);
    Tensor at = be->upload(a, {static_cast<int64_t>(a.size())});
    Tensor bt = be->upload(x, {static_cast<int64_t>(x.size())});
    Tensor ct = be->upload(c0, {static_cast<int64_t>(c0.size())});
    be->gemm_batched(*g, at, bt, ct);
    EXPECT_EQ(compare({"C", be->download(ct), want}), "") << (is_mix ? "P V" : "Q K^T");
    Vec c = c0;
    dnnl.gemm_batched_f32(*g, a.data(), x.data(), c.data());
    EXPECT_EQ(compare({"C", c, want}), "") << (is_mix ? "P V direct" : "Q K^T direct");
  }
}

#endif

// gemm_batched at a precision the CPU lacks is refused by the front, with the backend's reason.
TEST(OpsCpu, BatchedGemmRefusesF16AndTf32WithTheReason) {
  auto be = make_cpu_backend();
  GemmBatch g;
  g.m = g.n = g.k = 2, g.lda = g.ldb = g.ldc = 2;
  g.a_offsets = g.b_offsets = g.c_offsets = {0};
  Tensor a = be->upload(Vec(4, 1.f), {4}), b = be->upload(Vec(4, 1.f), {4});
  Tensor c = be->empty({4});
  for (Precision p : {Precision::f16, Precision::tf32}) {
    g.precision = p;
    try {
      be->gemm_batched(g, a, b, c);
      ADD_FAILURE() << precision_name(p) << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), std::string("gemm_batched: ") + precision_name(p) +
                                           " is not supported on " + be->device() + ": " +
                                           be->unsupported_reason(p));
    }
  }
}

#ifdef STAGEBENCH_HAVE_DNNL
// The bf16 batched GEMM's arithmetic, run directly (whether or not this CPU has avx512_bf16, which
// the backend requires; oneDNN may lack a bf16 matmul here, then the test skips): trans_a and
// beta = 1 against a double reference at bf16's tolerance.
TEST(OpsCpu, Bf16BatchedGemmThroughOneDnn) {
  auto be = make_cpu_backend();
  const int64_t m = 5, n = 7, k = 9;
  GemmBatch g;
  g.m = m, g.n = n, g.k = k, g.trans_a = true, g.trans_b = false, g.alpha = 0.5f, g.beta = 1.f;
  g.precision = Precision::bf16;
  g.lda = m + 1, g.ldb = n + 2, g.ldc = n + 3;
  g.a_offsets = {0, k * g.lda}, g.b_offsets = {k * g.ldb, 0}, g.c_offsets = {1, 1 + m * g.ldc};
  const Vec a = random_vec(2 * k * g.lda, 40), b = random_vec(2 * k * g.ldb, 41),
            c0 = random_vec(2 + 2 * m * g.ldc, 42);
  Tensor at = be->upload(a, {static_cast<int64_t>(a.size())}),
         bt = be->upload(b, {static_cast<int64_t>(b.size())}),
         ct = be->upload(c0, {static_cast<int64_t>(c0.size())});
  cpu::DnnlGemm dnnl(std::make_shared<AllocationTracker>());
  try {
    dnnl.gemm_batched(g, at, bt, ct);
  } catch (const dnnl::error& e) {
    GTEST_SKIP() << "oneDNN has no bf16 matmul here: " << e.what();
  }
  const std::string failure =
      compare({"C", be->download(ct), gemm_batched_ref(g, a, b, c0), Precision::bf16});
  EXPECT_TRUE(failure.empty()) << failure;
}
#endif

// Autotune measures on the first call with a key only, on scratch (beta = 1 accumulates once
// per call), and a second call with the key reuses the choice; a new key is tuned anew.
TEST(OpsCpu, AutotuneTunesOncePerKeyAndAccumulatesOnce) {
  auto be = make_cpu_backend();
  EXPECT_TRUE(be->autotune_choices().empty());
  GemmBatch g;
  g.m = 9, g.n = 11, g.k = 13, g.trans_b = true, g.beta = 1.f, g.autotune = true;
  g.lda = g.k, g.ldb = g.k + 1, g.ldc = g.n + 2;
  for (int64_t i = 0; i < 3; ++i) {
    g.a_offsets.push_back(i * g.m * g.lda);
    g.b_offsets.push_back(i * g.n * g.ldb);
    g.c_offsets.push_back(i * g.m * g.ldc);
  }
  const Vec a = random_vec(3 * g.m * g.lda, 50), b = random_vec(3 * g.n * g.ldb, 51),
            c0 = random_vec(3 * g.m * g.ldc, 52);
  const int64_t na = std::ssize(a), nb = std::ssize(b), nc = std::ssize(c0);
  const Tensor at = be->upload(a, {na}), bt = be->upload(b, {nb});
  Tensor ct = be->upload(c0, {nc});
  be->gemm_batched(g, at, bt, ct);
  const Vec once = be->download(ct);
  EXPECT_EQ(compare({"C after one call", once, gemm_batched_ref(g, a, b, c0)}), "");
  const auto first = be->autotune_choices();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].first,
            "m=9 n=11 k=13 ta=0 tb=1 beta=1 items=3 lda=13 ldb=14 ldc=13 strided=1");
  const std::string chosen = first[0].second;
  EXPECT_TRUE(chosen == "eigen_across_items" || chosen == "eigen_inside_gemm" ||
              chosen == "onednn_matmul" || chosen == "small_items")
      << chosen;
  be->gemm_batched(g, at, bt, ct);
  EXPECT_EQ(compare({"C after two calls", be->download(ct), gemm_batched_ref(g, a, b, once)}), "");
  EXPECT_EQ(be->autotune_choices(), first);
  g.beta = 0.f;  // another key
  be->gemm_batched(g, at, bt, ct);
  EXPECT_EQ(be->autotune_choices().size(), 2u);
}

// Tiny items (the small-items kernel by default, Eigen's with STAGEBENCH_CPU_F32_GEMM=eigen):
// every transpose combination, uneven offsets, alpha and beta, against the double reference.
TEST(OpsCpu, TinyItemsOnEitherDefaultKernel) {
  for (const char* kernel : {"", "eigen"})
    for (const bool ta : {false, true})
      for (const bool tb : {false, true}) {
        GemmBatch g;
        g.m = 4, g.n = 5, g.k = 33, g.trans_a = ta, g.trans_b = tb, g.alpha = 0.5f;
        g.beta = ta ? 0.5f : 0.f;
        const int64_t a_rows = ta ? g.k : g.m, b_rows = tb ? g.n : g.k;
        g.lda = (ta ? g.m : g.k) + 2, g.ldb = (tb ? g.k : g.n) + 3, g.ldc = g.n + 1;
        const int64_t items = 37;
        for (int64_t i = 0; i < items; ++i) {
          g.a_offsets.push_back(1 + (items - 1 - i) * a_rows * g.lda);
          g.b_offsets.push_back(i * b_rows * g.ldb);
          g.c_offsets.push_back(2 + i * g.m * g.ldc + (i % 2));
        }
        const Vec a = random_vec(4 + items * a_rows * g.lda, 71),
                  b = random_vec(4 + items * b_rows * g.ldb, 72),
                  c0 = random_vec(8 + items * g.m * g.ldc, 73);
        // Odd items' C sits one element on (uneven steps; a row's gap keeps items apart).
        if (*kernel) setenv("STAGEBENCH_CPU_F32_GEMM", kernel, 1);
        auto be = make_cpu_backend();
        unsetenv("STAGEBENCH_CPU_F32_GEMM");
        Tensor ct = be->upload(c0, {static_cast<int64_t>(c0.size())});
        be->gemm_batched(g, be->upload(a, {static_cast<int64_t>(a.size())}),
                         be->upload(b, {static_cast<int64_t>(b.size())}), ct);
        EXPECT_EQ(compare({"C", be->download(ct), gemm_batched_ref(g, a, b, c0)}), "")
            << "kernel '" << kernel << "' ta " << ta << " tb " << tb;
      }
}

// gemm_small's items on DeepFM's attention and FM shapes (split by the traffic-weighted cost
// into many chunks), for every transpose, with alpha and beta and uneven offsets, against the
// double reference; and with bf16 operands, bit for bit what the f32 items compute on operands
// rounded beforehand.
TEST(OpsCpu, DeepFmShapedTinyItems) {
  struct Shape {
    int64_t m, n, k;
  };
  for (const Shape& s : {Shape{4, 4, 32}, Shape{4, 32, 4}, Shape{4, 4, 64}, Shape{4, 64, 4},
                         Shape{4, 256, 4}, Shape{4, 4, 256}, Shape{1, 1, 256}, Shape{1, 256, 1}})
    for (const bool ta : {false, true})
      for (const bool tb : {false, true}) {
        GemmBatch g;
        g.m = s.m, g.n = s.n, g.k = s.k, g.trans_a = ta, g.trans_b = tb, g.alpha = 0.75f;
        g.beta = tb ? 0.5f : 0.f;
        ASSERT_TRUE(cpu::small_items(g));
        const int64_t a_rows = ta ? g.k : g.m, b_rows = tb ? g.n : g.k;
        g.lda = (ta ? g.m : g.k) + 1, g.ldb = (tb ? g.k : g.n) + 2, g.ldc = g.n + 3;
        const int64_t items = 70;  // more than one chunk at every thread count
        for (int64_t i = 0; i < items; ++i) {
          g.a_offsets.push_back(1 + (items - 1 - i) * a_rows * g.lda);
          g.b_offsets.push_back(i * b_rows * g.ldb);
          g.c_offsets.push_back(i * g.m * g.ldc + (i % 2));
        }
        const Vec a = random_vec(2 + items * a_rows * g.lda, 81),
                  b = random_vec(2 + items * b_rows * g.ldb, 82),
                  c0 = random_vec(4 + items * g.m * g.ldc, 83);
        const DVec want = gemm_batched_ref(g, a, b, c0);
        Vec rounded_a = a, rounded_b = b;
        for (float& v : rounded_a) v = cpu::round_to_bf16(v);
        for (float& v : rounded_b) v = cpu::round_to_bf16(v);
        const std::string where = "shape " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                                  std::to_string(s.k) + " ta " + std::to_string(ta) + " tb " +
                                  std::to_string(tb);
        Vec c = c0;
        cpu::gemm_small_items(g, a.data(), b.data(), c.data(), false);
        EXPECT_EQ(compare({"C", c, want}), "") << where;
        Vec c_bf16 = c0, c_rounded = c0;
        cpu::gemm_small_items(g, a.data(), b.data(), c_bf16.data(), true);
        cpu::gemm_small_items(g, rounded_a.data(), rounded_b.data(), c_rounded.data(), false);
        EXPECT_EQ(c_bf16, c_rounded) << where;
      }
}

// A single product large enough for the default kernel to be oneDNN's f32 matmul (with
// oneDNN), and the same with STAGEBENCH_CPU_F32_GEMM=eigen: trans_a, alpha, beta and a wide C,
// both against the double reference.
TEST(OpsCpu, LargeSingleF32ProductOnEitherDefaultKernel) {
  GemmBatch g;
  g.m = 160, g.n = 150, g.k = 360, g.trans_a = true, g.trans_b = false;
  g.alpha = 2.f, g.beta = 0.5f;
  g.lda = g.m + 3, g.ldb = g.n + 1, g.ldc = g.n + 7;
  g.a_offsets = {5}, g.b_offsets = {2}, g.c_offsets = {3};
  const Vec a = random_vec(8 + g.k * g.lda, 61), b = random_vec(4 + g.k * g.ldb, 62),
            c0 = random_vec(8 + g.m * g.ldc, 63);
  const DVec want = gemm_batched_ref(g, a, b, c0);
  for (const char* kernel : {"", "eigen"}) {
    if (*kernel) setenv("STAGEBENCH_CPU_F32_GEMM", kernel, 1);
    auto be = make_cpu_backend();
    unsetenv("STAGEBENCH_CPU_F32_GEMM");
    Tensor ct = be->upload(c0, {static_cast<int64_t>(c0.size())});
    be->gemm_batched(g, be->upload(a, {static_cast<int64_t>(a.size())}),
                     be->upload(b, {static_cast<int64_t>(b.size())}), ct);
    EXPECT_EQ(compare({"C", be->download(ct), want}), "") << "kernel '" << kernel << "'";
  }
}

#ifdef STAGEBENCH_HAVE_DNNL
// oneDNN's f32 candidate run directly: evenly strided items (one batched matmul) and items in
// reverse order (one matmul each), transposes, alpha and beta, against the double reference.
TEST(OpsCpu, OnednnF32BatchedGemmCandidate) {
  auto be = make_cpu_backend();
  cpu::DnnlGemm dnnl(std::make_shared<AllocationTracker>());
  for (const bool even : {true, false})
    for (const bool trans_a : {false, true}) {
      GemmBatch g;
      g.m = 6, g.n = 5, g.k = 7, g.trans_a = trans_a, g.trans_b = !trans_a, g.alpha = 0.5f;
      g.beta = trans_a ? 1.f : 0.f;
      const int64_t a_rows = trans_a ? g.k : g.m, b_rows = g.trans_b ? g.n : g.k;
      g.lda = (trans_a ? g.m : g.k) + 1, g.ldb = (g.trans_b ? g.k : g.n) + 2, g.ldc = g.n + 1;
      for (int64_t i = 0; i < 3; ++i) {
        g.a_offsets.push_back(i * a_rows * g.lda);
        g.b_offsets.push_back((even ? i : 2 - i) * b_rows * g.ldb);
        g.c_offsets.push_back(i * g.m * g.ldc);
      }
      const Vec a = random_vec(3 * a_rows * g.lda, 53), b = random_vec(3 * b_rows * g.ldb, 54);
      Vec c = random_vec(3 * g.m * g.ldc, 55);
      const DVec want = gemm_batched_ref(g, a, b, c);
      if (g.beta == 0.f)
        for (size_t it = 0; it < 3; ++it)
          for (int64_t i = 0; i < g.m; ++i)
            for (int64_t j = 0; j < g.n; ++j) c[g.c_offsets[it] + i * g.ldc + j] = std::nanf("");
      dnnl.gemm_batched_f32(g, a.data(), b.data(), c.data());
      EXPECT_EQ(compare({"C", c, want}), "") << "even " << even << " trans_a " << trans_a;
    }
}
#endif

}  // namespace
}  // namespace sb::testing
