// Backward ops in fewer launches on the OpenCL backend (dfm36). linear_backward
// (models/ops/opencl/linear_grads.cpp): at f16 on the NVIDIA tensor-core path one launch packs both
// products' operands and sums db, and the results are the op layer's default's (two gemm_batched
// calls and sum_axis1): the products the same bits (the same halves into the same kernels), db
// within fp32 rounding of another order; elsewhere (f32 on PoCL) the backend runs the default and
// the comparison holds trivially. layernorm_backward's merged launch (backward.cpp): on every
// device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "tests/ops/opencl_fixture.h"
#include "tests/ops/reference.h"

namespace sb::testing {
namespace {

TEST_F(OpsOpenCL, LinearBackwardInOnePackIsTheTwoProductsAndTheSum) {
  const char* knob = std::getenv("STAGEBENCH_LINEAR_GRADS");
  const bool one_pack = be->has_mma() && !(knob && std::string(knob) == "off");
  // f16 products need the tensor cores; elsewhere (PoCL) the default at f32.
  const Precision p = be->has_mma() ? Precision::f16 : Precision::f32;
  // rows x in -> out, every K a multiple of 8 and no product narrow enough for the small kernel;
  // dx added to (beta 1) as DeepFM's qkv and lin1 layers do.
  constexpr int64_t rows = 64, in = 96, out = 136;
  const Tensor x = be->upload(random_vec(rows * in, 701), {rows, in});
  const Tensor dy = be->upload(random_vec(rows * out, 702), {rows, out});
  const Tensor w = be->upload(random_vec(out * in, 703), {out, in});
  const std::vector<float> dx0 = random_vec(rows * in, 704);
  for (const float beta : {0.f, 1.f}) {
    SCOPED_TRACE("dx beta " + std::to_string(beta));
    Tensor dw = be->empty({out, in}), db = be->empty({out}), dx = be->upload(dx0, {rows, in});
    const uint64_t packs = launches("pack_f16_linear_grads"), sums = launches("sum_axis1_split");
    be->linear_backward(x, dy, w, dw, db, &dx, beta, p, false);
    be->synchronize();
    EXPECT_EQ(launches("pack_f16_linear_grads") - packs, one_pack ? 1u : 0u);
    EXPECT_EQ(launches("sum_axis1_split") - sums, one_pack ? 0u : 1u);
    // The default, spelled out.
    GemmBatch gw;
    gw.m = out, gw.n = in, gw.k = rows, gw.trans_a = true, gw.trans_b = false;
    gw.lda = out, gw.ldb = in, gw.ldc = in, gw.precision = p;
    gw.a_offsets = gw.b_offsets = gw.c_offsets = {0};
    GemmBatch gx = gw;
    gx.m = rows, gx.n = in, gx.k = out, gx.trans_a = false, gx.beta = beta, gx.lda = out;
    Tensor rw = be->empty({out, in}), rb = be->empty({1, out}), rx = be->upload(dx0, {rows, in});
    be->gemm_batched(gw, dy, x, rw);
    be->sum_axis1(dy.reshaped({1, rows, out}), nullptr, rb);
    be->gemm_batched(gx, dy, w, rx);
    EXPECT_EQ(be->download(dw), be->download(rw));
    EXPECT_EQ(be->download(dx), be->download(rx));
    const std::vector<float> got = be->download(db), want = be->download(rb);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-5f * (1.f + std::fabs(want[i]))) << "db[" << i << "]";
  }
}

// LayerNorm's backward with the column sums in the dx launch (backward.cpp, dfm36): the same bits
// as the four passes, dx written over dy too (DeepFM's calls do that).
TEST_F(OpsOpenCL, LayerNormBackwardMergedIsTheFourPassesBitForBit) {
  // rows x cols: 8 chunks and 600 column sums; the op table's 370 x 70 (it crashed PoCL when the
  // sums had work-groups of their own, items leaving before the dx part's barriers) and 3 x 6.
  for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{64, 300}, {370, 70}, {3, 6}}) {
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
    const Tensor x = be->upload(random_vec(rows * cols, 711, -2, 2), {rows, cols});
    const Tensor gamma = be->upload(random_vec(cols, 712), {cols});
    const std::vector<float> dy0 = random_vec(rows * cols, 713);
    struct Out {
      std::vector<float> dx, dgamma, dbeta;
    };
    auto run = [&](bool merged, bool in_place) {
      const bool before = be->layernorm_backward_merged(merged);
      Tensor dy = be->upload(dy0, {rows, cols}), dx = be->empty({rows, cols});
      Tensor dgamma = be->empty({cols}), dbeta = be->empty({cols});
      const uint64_t fused = launches("layernorm_backward_dx_columns"),
                     columns = launches("layernorm_backward_columns");
      be->layernorm_backward(x, gamma, 1e-5f, dy, in_place ? dy : dx, dgamma, dbeta);
      EXPECT_EQ(launches("layernorm_backward_dx_columns") - fused, merged ? 1u : 0u);
      EXPECT_EQ(launches("layernorm_backward_columns") - columns, merged ? 0u : 1u);
      be->layernorm_backward_merged(before);
      return Out{be->download(in_place ? dy : dx), be->download(dgamma), be->download(dbeta)};
    };
    for (const bool in_place : {false, true}) {
      SCOPED_TRACE(in_place ? "dx over dy" : "dx apart");
      const Out a = run(true, in_place), b = run(false, in_place);
      EXPECT_EQ(a.dx, b.dx);
      EXPECT_EQ(a.dgamma, b.dgamma);
      EXPECT_EQ(a.dbeta, b.dbeta);
    }
  }
}

}  // namespace
}  // namespace sb::testing
