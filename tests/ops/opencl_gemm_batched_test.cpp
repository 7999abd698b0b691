// gemm_batched on the OpenCL backend: CLBlast's routines and the choice among them, our narrow
// products, the tensor-core path (packing, C written directly) and autotuning; each counts the
// launches it expects through the kernel log.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "models/ops/opencl/opencl_backend_impl.h"
#include "tests/ops/op_case.h"
#include "tests/ops/opencl_fixture.h"
#include "tests/ops/test_env.h"

namespace sb::testing {
namespace {

TEST_F(OpsOpenCLClblast, BatchedGemmTransposesAccumulatesAndIgnoresCAtBetaZero) {
  const int64_t m = 5, n = 7, k = 3;
  const Vec ah = random_vec(2 * k * m, 60), bh = random_vec(2 * k * n, 61);  // A^T, B as [k, n]
  const Tensor a = be->upload(ah, {2, k, m}), b = be->upload(bh, {2, k, n});
  GemmBatch g;
  g.m = m, g.n = n, g.k = k, g.trans_b = false, g.trans_a = true, g.alpha = 0.5f;
  g.lda = m, g.ldb = n, g.ldc = n;
  g.a_offsets = {0, k * m}, g.b_offsets = {0, k * n}, g.c_offsets = {0, m * n};
  const Vec nan_c(2 * m * n, std::nanf(""));
  Tensor c = be->upload(nan_c, {2, m, n});
  be->gemm_batched(g, a, b, c);
  EXPECT_EQ(compare({"beta 0", be->download(c), gemm_batched_ref(g, ah, bh, nan_c)}), "");
  const Vec c0 = random_vec(2 * m * n, 62);
  be->write(c0, c);
  g.beta = 1.f;
  be->gemm_batched(g, a, b, c);
  EXPECT_EQ(compare({"beta 1", be->download(c), gemm_batched_ref(g, ah, bh, c0)}), "");
  if (be->has_mma()) return;  // f16 runs there (several items in fp32): the next test
  g.precision = Precision::f16;
  try {
    be->gemm_batched(g, a, b, c);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("f32 only"), std::string::npos) << e.what();
  }
}

// Attention's products (items b-major over heads, q and k interleaved in [B, n, H*dh]): every
// routine STAGEBENCH_GEMM_BATCHED can force computes what one Gemm per item does, the grouped
// one as one strided batch per head, `small` (ours) from the offsets' two-level strides; a name
// a batch cannot take is refused.
TEST_F(OpsOpenCLClblast, EveryForcedBatchedRoutineComputesTheSameScores) {
  const int64_t batch = 3, heads = 2, n = 5, dh = 4, ld = heads * dh;
  const Tensor q = be->upload(random_vec(batch * n * ld, 63), {batch, n, ld});
  const Tensor k = be->upload(random_vec(batch * n * ld, 64), {batch, n, ld});
  GemmBatch g;
  g.m = n, g.n = n, g.k = dh, g.lda = ld, g.ldb = ld, g.ldc = n, g.alpha = 0.5f;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h) {
      g.a_offsets.push_back(b * n * ld + h * dh);
      g.b_offsets.push_back(b * n * ld + h * dh);
      g.c_offsets.push_back((b * heads + h) * n * n);
    }
  auto scores = [&](const char* routine) {
    setenv("STAGEBENCH_GEMM_BATCHED", routine, 1);
    Tensor c = be->upload(Vec(batch * heads * n * n, std::nanf("")), {batch * heads, n, n});
    be->gemm_batched(g, q, k, c);
    unsetenv("STAGEBENCH_GEMM_BATCHED");
    return be->download(c);
  };
  const Vec per_item = scores("per_item");
  for (const char* routine : {"batched", "strided_groups", "small"}) {
    const Vec got = scores(routine);
    DVec want(per_item.begin(), per_item.end());
    EXPECT_EQ(compare({routine, got, want}), "") << routine;
  }
  for (const char* routine : {"strided_batched", "no_such_routine"}) {
    try {
      scores(routine);
      ADD_FAILURE() << routine << " accepted";
    } catch (const std::invalid_argument& e) {
      unsetenv("STAGEBENCH_GEMM_BATCHED");
      EXPECT_NE(std::string(e.what()).find(routine), std::string::npos) << e.what();
    }
  }
}

// Narrow products are ours by default (one launch of gemm_batched_small, no CLBlast span), and
// the kernel takes each operand's own two-level strides (b-major over heads for A and B, one
// step for C, items in reverse for B); offsets without that form stay with CLBlast.
TEST_F(OpsOpenCLClblast, NarrowProductsRunOnOneKernelFromTheirStrides) {
  const int64_t batch = 3, heads = 2, n = 4, dh = 6, ld = 3 * heads * dh;
  const Vec ah = random_vec(batch * n * ld, 65), bh = random_vec(batch * n * ld, 66);
  GemmBatch g;
  g.m = n, g.n = n, g.k = dh, g.lda = ld, g.ldb = ld, g.ldc = n, g.alpha = 0.25f, g.beta = 1.f;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h) {
      g.a_offsets.push_back(b * n * ld + h * dh);
      g.b_offsets.push_back((batch - 1 - b) * n * ld + heads * dh + h * dh);
      g.c_offsets.push_back((b * heads + h) * n * n);
    }
  const Vec c0 = random_vec(batch * heads * n * n, 67);
  const DVec want = gemm_batched_ref(g, ah, bh, c0);
  const Tensor a = be->upload(ah, {std::ssize(ah)}), b = be->upload(bh, {std::ssize(bh)});
  Tensor c = be->upload(c0, {std::ssize(c0)});
  const uint64_t small = launches("gemm_batched_small"), library = launches("clblast_gemm_batched");
  be->gemm_batched(g, a, b, c);
  EXPECT_EQ(compare({"C", be->download(c), want}), "");
  EXPECT_EQ(launches("gemm_batched_small"), small + 1);
  EXPECT_EQ(launches("clblast_gemm_batched"), library);
  // Items in no two-level order: CLBlast's GemmBatched computes them.
  std::swap(g.a_offsets[1], g.a_offsets[4]);
  be->gemm_batched(g, a, b, c);
  EXPECT_EQ(launches("gemm_batched_small"), small + 1);
  EXPECT_EQ(launches("clblast_gemm_batched"), library + 1);
}

// One product at f16 or tf32 on the tensor cores: every transpose combination, alpha, beta
// accumulation and a C item inside a larger strided buffer; shapes off the 128 x 128 tiles.
TEST_F(OpsOpenCL, BatchedGemmOnTensorCoresPacksEveryLayout) {
  if (!be->has_mma()) GTEST_SKIP() << be->device() << " has no mma.sync path";
  const int64_t m = 37, n = 150, k = 70, ldc = n + 9, c_off = 2 * ldc + 3;
  for (const Precision p : {Precision::f16, Precision::tf32})
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb) {
        SCOPED_TRACE(std::string(precision_name(p)) + " ta " + std::to_string(ta) + " tb " +
                     std::to_string(tb));
        const Vec ah = random_vec(m * k, 70), bh = random_vec(n * k, 71);
        const Vec c0 = random_vec((m + 3) * ldc, 72);
        GemmBatch g;
        g.m = m, g.n = n, g.k = k, g.trans_a = ta, g.trans_b = tb, g.alpha = 0.5f, g.beta = 1.f;
        g.lda = ta ? m : k, g.ldb = tb ? k : n, g.ldc = ldc;
        g.a_offsets = {0}, g.b_offsets = {0}, g.c_offsets = {c_off};
        g.precision = p;
        Tensor c = be->upload(c0, {m + 3, ldc});
        be->gemm_batched(g, be->upload(ah, {m * k}), be->upload(bh, {n * k}), c);
        EXPECT_EQ(compare({"C", be->download(c), gemm_batched_ref(g, ah, bh, c0), p}), "");
      }
}

// A product whose C is its own contiguous [M, N] with alpha 1 lands in C from the GEMM itself:
// beta 0 on a NaN C (never read) and beta 1 (C added in place), no axpby pass; f16 packs both
// operands in one launch where its GEMM is pipelined. K 64 and 70 take both GEMM forms.
TEST_F(OpsOpenCL, BatchedGemmOnTensorCoresWritesContiguousCDirectly) {
  if (!be->has_mma()) GTEST_SKIP() << be->device() << " has no mma.sync path";
  const int64_t m = 37, n = 150;
  for (const int64_t k : {int64_t{64}, int64_t{70}})
    for (const Precision p : {Precision::f16, Precision::tf32})
      for (const float beta : {0.f, 1.f})
        for (int tb = 0; tb < 2; ++tb) {
          SCOPED_TRACE(std::string(precision_name(p)) + " k " + std::to_string(k) + " beta " +
                       std::to_string(beta) + " tb " + std::to_string(tb));
          const Vec ah = random_vec(m * k, 80), bh = random_vec(n * k, 81);
          Vec c0 = random_vec(m * n, 82);
          GemmBatch g;
          g.m = m, g.n = n, g.k = k, g.trans_b = tb, g.beta = beta;
          g.lda = k, g.ldb = tb ? k : n, g.ldc = n;
          g.a_offsets = {0}, g.b_offsets = {0}, g.c_offsets = {0};
          g.precision = p;
          const DVec want = gemm_batched_ref(g, ah, bh, c0);  // before a beta of 0 NaNs C
          if (beta == 0.f) std::fill(c0.begin(), c0.end(), std::nanf(""));
          Tensor c = be->upload(c0, {m, n});
          const uint64_t axpby = launches("axpby_strided"), pairs = launches("pack_f16_pair"),
                         singles = launches("pack_f16") + launches("pack_f32");
          be->gemm_batched(g, be->upload(ah, {m * k}), be->upload(bh, {n * k}), c);
          EXPECT_EQ(compare({"C", be->download(c), want, p}), "");
          EXPECT_EQ(launches("axpby_strided"), axpby);
          const uint64_t packs = launches("pack_f16_pair") - pairs;
          EXPECT_EQ(packs + launches("pack_f16") + launches("pack_f32") - singles,
                    packs == 1 ? 1u : 2u);
          if (p == Precision::tf32) {
            EXPECT_EQ(packs, 0u);
          }
        }
}

// An f16 product with K split on wgmma: slices of equal runs of K tiles (the last one empty at
// 5 splits of 16 K tiles, partial at 3, K's tail at 1,000), summed into C with alpha and beta by
// the one pass after the GEMM, the same bits on a second call (a fixed order). A product whose C
// is its own takes a bias (GemmBatch::bias), added by that pass, or unsplit by the GEMM's
// epilogue: no pass at all.
TEST_F(OpsOpenCL, SplitKProductsSumTheirSlicesIntoC) {
  if (!be->has_wgmma()) GTEST_SKIP() << be->device() << " has no checked wgmma path";
  const int64_t m = 70, n = 200;
  for (const int64_t k : {int64_t{1024}, int64_t{1000}})
    for (const int splits : {1, 3, 5})
      for (const bool strided : {false, true}) {
        SCOPED_TRACE("k " + std::to_string(k) + " splits " + std::to_string(splits) +
                     (strided ? " strided C" : " own C"));
        const int64_t ldc = strided ? n + 5 : n, c_off = strided ? 3 : 0;
        const int64_t c_rows = strided ? m + 1 : m;
        const Vec ah = random_vec(k * m, 92), bh = random_vec(k * n, 93),
                  c0 = random_vec(c_rows * ldc, 94), bias = random_vec(n, 95);
        const Tensor bias_t = be->upload(bias, {n});
        GemmBatch g;
        g.m = m, g.n = n, g.k = k, g.trans_a = true, g.trans_b = false;
        g.lda = m, g.ldb = n, g.ldc = ldc;
        g.alpha = strided ? 0.5f : 1.f, g.beta = strided ? 1.f : 0.f;
        g.a_offsets = {0}, g.b_offsets = {0}, g.c_offsets = {c_off};
        g.precision = Precision::f16;
        if (!strided) g.bias = &bias_t;
        const DVec want = gemm_batched_ref(g, ah, bh, c0, strided ? Vec{} : bias);
        be->force_split_k(splits);
        const uint64_t sums = launches("axpby_strided");
        Tensor c = be->upload(c0, {c_rows, ldc});
        be->gemm_batched(g, be->upload(ah, {k * m}), be->upload(bh, {k * n}), c);
        const Vec first = be->download(c);
        EXPECT_EQ(compare({"C", first, want, Precision::f16}), "");
        EXPECT_EQ(launches("axpby_strided") - sums, splits > 1 || strided ? 1u : 0u);
        Tensor again = be->upload(c0, {c_rows, ldc});
        be->gemm_batched(g, be->upload(ah, {k * m}), be->upload(bh, {k * n}), again);
        EXPECT_EQ(be->download(again), first);
        be->force_split_k(0);
      }
}

// A narrow product at f16 or tf32 on NVIDIA is computed in fp32 by the small kernel, one launch
// (the lanes' form at DeepFM's head shape, K 1,030), not packed for the mma kernels; so is a
// thin-K one (the heads' data gradient, 64 x 1,030 with K 6: the loop form).
TEST_F(OpsOpenCL, NarrowReducedPrecisionProductsRunOnTheSmallKernel) {
  if (!be->has_mma()) GTEST_SKIP() << be->device() << " has no mma.sync path";
  struct Shape {
    int64_t m, n, k;
    const char* kernel;
  };
  for (const Shape s :
       {Shape{64, 6, 1030, "gemm_batched_small_lanes"}, Shape{64, 1030, 6, "gemm_batched_small"}})
    for (const Precision p : {Precision::f16, Precision::tf32}) {
      SCOPED_TRACE(std::string(precision_name(p)) + " " + s.kernel);
      const int64_t m = s.m, n = s.n, k = s.k;
      const Vec ah = random_vec(m * k, 90), bh = random_vec(n * k, 91);
      GemmBatch g;
      g.m = m, g.n = n, g.k = k, g.trans_b = true, g.lda = k, g.ldb = k, g.ldc = n;
      g.a_offsets = {0}, g.b_offsets = {0}, g.c_offsets = {0};
      g.precision = p;
      Tensor c = be->empty({m, n});
      const uint64_t small = launches(s.kernel),
                     packs =
                         launches("pack_f32") + launches("pack_f16") + launches("pack_f16_pair");
      be->gemm_batched(g, be->upload(ah, {m * k}), be->upload(bh, {n * k}), c);
      const DVec want = gemm_batched_ref(g, ah, bh, Vec(m * n));  // beta 0: C unread
      EXPECT_EQ(compare({"C", be->download(c), want, Precision::f32}), "");
      EXPECT_EQ(launches(s.kernel), small + 1);
      EXPECT_EQ(launches("pack_f32") + launches("pack_f16") + launches("pack_f16_pair"), packs);
    }
}

// dfm35 (STAGEBENCH_THIN_GEMM=small, the default): a narrow product's bias is added in the small
// kernel's epilogue (no affine_channels pass; DeepFM's heads, 64 x 6 with K 1,030), and a
// one-item product of few rows and a short K (the heads' weight gradients, 6 x 1,030 with K 64,
// both operands transposed as linear_backward passes them) runs there too, not packed.
TEST_F(OpsOpenCL, HeadsBiasAndWeightGradientsRunOnTheSmallKernel) {
  if (!be->has_mma()) GTEST_SKIP() << be->device() << " has no mma.sync path";
  if (env_is("STAGEBENCH_THIN_GEMM", "mma")) GTEST_SKIP() << "STAGEBENCH_THIN_GEMM=mma";
  struct Shape {
    int64_t m, n, k;
    bool weight_gradient;
    const char* kernel;
  };
  for (const Shape s : {Shape{64, 6, 1030, false, "gemm_batched_small_lanes"},
                        Shape{6, 1030, 64, true, "gemm_batched_small"},
                        Shape{12, 1030, 64, true, "gemm_batched_small"}})
    for (const Precision p : {Precision::f16, Precision::tf32}) {
      SCOPED_TRACE(std::string(precision_name(p)) + " " + std::to_string(s.m) + "x" +
                   std::to_string(s.n) + "x" + std::to_string(s.k));
      const int64_t m = s.m, n = s.n, k = s.k;
      // Forward: A x [m, k], B W [n, k] (trans_b), bias [n]. Weight gradient: A dy [k, m]
      // (trans_a), B x [k, n], no bias.
      const Vec ah = random_vec(m * k, 96), bh = random_vec(n * k, 97), bias = random_vec(n, 98);
      GemmBatch g;
      g.m = m, g.n = n, g.k = k, g.ldc = n;
      g.trans_a = s.weight_gradient, g.trans_b = !s.weight_gradient;
      g.lda = s.weight_gradient ? m : k, g.ldb = s.weight_gradient ? n : k;
      g.a_offsets = {0}, g.b_offsets = {0}, g.c_offsets = {0};
      g.precision = p;
      const Tensor bias_t = be->upload(bias, {n});
      if (!s.weight_gradient) g.bias = &bias_t;
      Tensor c = be->empty({m, n});
      const uint64_t small = launches(s.kernel), affine = launches("affine_channels"),
                     packs =
                         launches("pack_f32") + launches("pack_f16") + launches("pack_f16_pair");
      be->gemm_batched(g, be->upload(ah, {m * k}), be->upload(bh, {n * k}), c);
      const DVec want = gemm_batched_ref(g, ah, bh, Vec(m * n), s.weight_gradient ? Vec{} : bias);
      EXPECT_EQ(compare({"C", be->download(c), want, Precision::f32}), "");
      EXPECT_EQ(launches(s.kernel), small + 1);
      EXPECT_EQ(launches("affine_channels"), affine);
      EXPECT_EQ(launches("pack_f32") + launches("pack_f16") + launches("pack_f16_pair"), packs);
    }
}

// Autotune measures on the first call with a key only, on scratch (beta = 1 accumulates once
// per call), and a second call with the key reuses the choice. The backend is shared between
// tests, so the key is one no other test uses, and the count is relative.
TEST_F(OpsOpenCLClblast, AutotuneTunesOncePerKeyAndAccumulatesOnce) {
  GemmBatch g;
  g.m = 9, g.n = 11, g.k = 13, g.trans_b = true, g.beta = 1.f, g.autotune = true;
  g.lda = g.k + 3, g.ldb = g.k + 1, g.ldc = g.n + 2;
  for (int64_t i = 0; i < 3; ++i) {
    g.a_offsets.push_back(i * g.m * g.lda);
    g.b_offsets.push_back(i * g.n * g.ldb);
    g.c_offsets.push_back(i * g.m * g.ldc);
  }
  const Vec ah = random_vec(3 * g.m * g.lda, 63), bh = random_vec(3 * g.n * g.ldb, 64),
            c0 = random_vec(3 * g.m * g.ldc, 65);
  const auto want = [&](const Vec& c) { return gemm_batched_ref(g, ah, bh, c); };
  const Tensor a = be->upload(ah, {std::ssize(ah)}), b = be->upload(bh, {std::ssize(bh)});
  Tensor c = be->upload(c0, {std::ssize(c0)});
  const size_t before = be->autotune_choices().size();
  be->gemm_batched(g, a, b, c);
  const Vec once = be->download(c);
  EXPECT_EQ(compare({"C after one call", once, want(c0)}), "");
  const auto first = be->autotune_choices();
  ASSERT_EQ(first.size(), before + 1);
  const std::string key = "m=9 n=11 k=13 ta=0 tb=1 beta=1 items=3 lda=16 ldb=14 ldc=13 strided=1";
  std::string chosen;
  for (const auto& [k, v] : first)
    if (k == key) chosen = v;
  EXPECT_TRUE(chosen == "clblast_gemm_batched" || chosen == "clblast_gemm_per_item" ||
              chosen == "clblast_gemm_strided_batched" || chosen == "gemm_batched_small")
      << "'" << chosen << "'";
  be->gemm_batched(g, a, b, c);
  EXPECT_EQ(compare({"C after two calls", be->download(c), want(once)}), "");
  EXPECT_EQ(be->autotune_choices(), first);
}

}  // namespace
}  // namespace sb::testing
