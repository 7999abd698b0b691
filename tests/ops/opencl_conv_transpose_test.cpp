// conv_transpose3d's channels-last bf16 k2 s2 passes on NVIDIA's implicit GEMMs
// (models/ops/opencl/conv_transpose3d_igemm.cpp; skipped on devices without mma.sync): each
// against a double reference over the bf16-rounded operands within 5e-5 relative L2, which the
// fp32 CLBlast path (about 1e-3 from those references) would miss, the implicit-GEMM kernels'
// launch counts showing they ran, and the weight gradient the same bits on a second run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/ops/opencl/opencl_backend.h"
#include "models/ops/opencl/opencl_backend_impl.h"
#include "tests/ops/op_case.h"
#include "tests/ops/opencl_fixture.h"
#include "tests/ops/reference.h"

namespace sb::testing {
namespace {

// ndhwc, k = s = 2: input voxel (n, z, y, x) feeds y's (n, 2z + a, 2y + b, 2x + c) through
// w[ci, co, a, b, c]; f(input element offset base, output element offset base, tap).
struct ConvtGeometry {
  int64_t batch, ci, co, d, h, w;
  template <class F>
  void each(F&& f) const {
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t z = 0; z < d; ++z)
        for (int64_t y = 0; y < h; ++y)
          for (int64_t x = 0; x < w; ++x)
            for (int t = 0; t < 8; ++t) {
              const int64_t oz = 2 * z + (t >> 2), oy = 2 * y + ((t >> 1) & 1),
                            ox = 2 * x + (t & 1);
              f((((n * d + z) * h + y) * w + x) * ci,
                (((n * 2 * d + oz) * 2 * h + oy) * 2 * w + ox) * co, t);
            }
  }
};

TEST_F(OpsOpenCL, ConvTranspose3dIgemmMultipliesBf16Values) {
  if (!be->has_mma()) GTEST_SKIP() << "no NVIDIA tensor cores: no bf16 transposed convolution";
  uint32_t seed = 900;
  // DynUNet full's two channel pairs (64 -> 32, 32 -> 16) on small cubes; 16 -> 8 on odd sizes.
  for (const ConvtGeometry& g :
       {ConvtGeometry{2, 64, 32, 5, 5, 5}, ConvtGeometry{2, 32, 16, 6, 6, 6},
        ConvtGeometry{3, 16, 8, 3, 5, 7}}) {
    Conv3dShape s;
    s.batch = g.batch, s.in_channels = g.ci, s.out_channels = g.co;
    s.d = g.d, s.h = g.h, s.w = g.w, s.kernel = 2, s.stride = 2, s.padding = 0;
    s.layout = Layout3d::ndhwc, s.precision = Precision::bf16;
    const int64_t vox = g.batch * g.d * g.h * g.w;
    const std::vector<float> x = random_vec(static_cast<size_t>(vox * g.ci), ++seed);
    const std::vector<float> w = random_vec(static_cast<size_t>(g.ci * g.co * 8), ++seed);
    const std::vector<float> bias = random_vec(static_cast<size_t>(g.co), ++seed);
    const std::vector<float> dy = random_vec(static_cast<size_t>(8 * vox * g.co), ++seed);
    const std::vector<float> xb = bf16_rounded(x), wb = bf16_rounded(w), dyb = bf16_rounded(dy);
    std::vector<double> y_ref(dy.size()), dx_ref(x.size(), 0.0), dw_ref(w.size(), 0.0),
        db_ref(static_cast<size_t>(g.co), 0.0);
    g.each([&](int64_t in, int64_t out, int t) {
      for (int64_t co = 0; co < g.co; ++co) {
        double acc = bias[static_cast<size_t>(co)];
        for (int64_t ci = 0; ci < g.ci; ++ci) {
          const size_t wi = static_cast<size_t>((ci * g.co + co) * 8 + t);
          acc += double{xb[static_cast<size_t>(in + ci)]} * wb[wi];
          dx_ref[static_cast<size_t>(in + ci)] +=
              double{dyb[static_cast<size_t>(out + co)]} * wb[wi];
          dw_ref[wi] +=
              double{xb[static_cast<size_t>(in + ci)]} * dyb[static_cast<size_t>(out + co)];
        }
        y_ref[static_cast<size_t>(out + co)] = acc;
        db_ref[static_cast<size_t>(co)] += dy[static_cast<size_t>(out + co)];
      }
    });
    const std::vector<int64_t> x_shape{g.batch, g.d, g.h, g.w, g.ci},
        y_shape{g.batch, 2 * g.d, 2 * g.h, 2 * g.w, g.co}, w_shape{g.ci, g.co, 2, 2, 2};
    const Tensor xt = be->upload(x, x_shape), wt = be->upload(w, w_shape),
                 bt = be->upload(bias, {g.co}), dyt = be->upload(dy, y_shape);
    const std::string what = std::to_string(g.ci) + "->" + std::to_string(g.co) + " " +
                             std::to_string(g.d) + "x" + std::to_string(g.h) + "x" +
                             std::to_string(g.w);

    const uint64_t rows = launches("convt3d_weight_rows_bf16");
    Tensor y = be->upload(std::vector<float>(dy.size(), NAN), y_shape);
    be->conv_transpose3d(s, xt, wt, &bt, y);
    EXPECT_EQ(launches("convt3d_weight_rows_bf16"), rows + 1) << what;
    EXPECT_LE(rel_l2_of(be->download(y), y_ref), 5e-5) << "y " << what;

    const uint64_t taps = launches("conv3d_weight_taps_first_bf16");
    Tensor dx = be->upload(std::vector<float>(x.size(), NAN), x_shape);
    be->conv_transpose3d_backward_data(s, dyt, wt, dx);
    EXPECT_EQ(launches("conv3d_weight_taps_first_bf16"), taps + 1) << what;
    EXPECT_LE(rel_l2_of(be->download(dx), dx_ref), 5e-5) << "dx " << what;

    const uint64_t sums = launches("conv3d_dw_sum");
    std::vector<float> dw_runs[2];
    for (std::vector<float>& run : dw_runs) {
      Tensor dw = be->upload(std::vector<float>(w.size(), NAN), w_shape);
      Tensor db = be->upload(std::vector<float>(static_cast<size_t>(g.co), NAN), {g.co});
      be->conv_transpose3d_backward_weights(s, xt, dyt, dw, &db);
      run = be->download(dw);
      EXPECT_LE(rel_l2_of(be->download(db), db_ref), 1e-5) << "dbias " << what;
    }
    EXPECT_EQ(launches("conv3d_dw_sum"), sums + 2) << what;
    EXPECT_LE(rel_l2_of(dw_runs[0], dw_ref), 5e-5) << "dw " << what;
    EXPECT_EQ(dw_runs[0], dw_runs[1]) << "dw bits " << what;
  }
}

}  // namespace
}  // namespace sb::testing
