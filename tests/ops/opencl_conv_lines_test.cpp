// conv3d_lines_bf16_16 (models/ops/opencl/kernels/conv3d_lines_bf16_nvidia.cl; skipped on devices
// without mma.sync): the 3^3 stride-1 forward pass into 16 channels, from 16 and 32 input
// channels (32: two launches, the second adding), and the data gradient of a 16 -> 16
// convolution, each against a double reference over the bf16-rounded operands within 5e-5
// relative L2 (bf16 products, fp32 sums), with the kernel's launch counts showing it ran, the
// padding planes and the line-pair walk across planes and samples covered by small odd-count
// depths, and the result the same bits on a second run.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "models/ops/opencl/opencl_backend.h"
#include "tests/ops/opencl_fixture.h"
#include "tests/ops/reference.h"

namespace sb::testing {
namespace {

// y[n, z, y, x, co] = bias[co] + sum over taps and ci of x[n, z + kz - 1, ...] w[co, ci, tap],
// channels-last, 3^3, stride 1, padding 1; flip: the data gradient's form (w[ci, co, 26 - tap]
// with ci the output), x then being dy.
std::vector<double> conv_same_reference(const Conv3dShape& s, const std::vector<float>& x,
                                        const std::vector<float>& w, const float* bias, int64_t cin,
                                        int64_t cout, bool flip) {
  std::vector<double> y(static_cast<size_t>(s.batch * s.d * s.h * s.w * cout), 0.0);
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t z = 0; z < s.d; ++z)
      for (int64_t yy = 0; yy < s.h; ++yy)
        for (int64_t xx = 0; xx < s.w; ++xx)
          for (int64_t co = 0; co < cout; ++co) {
            double acc = bias ? bias[co] : 0.0;
            for (int tap = 0; tap < 27; ++tap) {
              const int64_t iz = z + tap / 9 - 1, iy = yy + tap / 3 % 3 - 1, ix = xx + tap % 3 - 1;
              if (iz < 0 || iz >= s.d || iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
              const int64_t in = (((n * s.d + iz) * s.h + iy) * s.w + ix) * cin;
              for (int64_t ci = 0; ci < cin; ++ci) {
                const size_t wi = static_cast<size_t>(flip ? (ci * cout + co) * 27 + (26 - tap)
                                                           : (co * cin + ci) * 27 + tap);
                acc += double{x[static_cast<size_t>(in + ci)]} * w[wi];
              }
            }
            y[static_cast<size_t>((((n * s.d + z) * s.h + yy) * s.w + xx) * cout + co)] = acc;
          }
  return y;
}

TEST_F(OpsOpenCL, ConvLinesMultipliesBf16Values) {
  if (!be->has_mma()) GTEST_SKIP() << "no NVIDIA tensor cores: no bf16 convolution";
  // On for this test whatever the environment says (STAGEBENCH_CONV_LINES=off turns it off),
  // the environment's setting again after it.
  struct LinesOn {
    explicit LinesOn(OpenCLBackend* be) : be(be) { be->use_conv_lines(4); }
    ~LinesOn() { be->use_conv_lines(conv_lines_requested()); }
    OpenCLBackend* be;
  } const lines_on(be);
  struct Case {
    int64_t batch, in, d, h, w;
  };
  uint32_t seed = 3300;
  for (const Case& c : {Case{2, 16, 3, 6, 32}, Case{1, 32, 2, 4, 64}, Case{3, 16, 1, 2, 64}}) {
    Conv3dShape s;
    s.batch = c.batch, s.in_channels = c.in, s.out_channels = 16;
    s.d = c.d, s.h = c.h, s.w = c.w, s.kernel = 3, s.stride = 1, s.padding = 1;
    s.layout = Layout3d::ndhwc, s.precision = Precision::bf16;
    const int64_t vox = c.batch * c.d * c.h * c.w;
    const std::vector<float> x = random_vec(static_cast<size_t>(vox * c.in), ++seed);
    const std::vector<float> w = random_vec(static_cast<size_t>(16 * c.in * 27), ++seed);
    const std::vector<float> bias = random_vec(16, ++seed);
    const std::vector<float> xb = bf16_rounded(x), wb = bf16_rounded(w);
    const std::vector<int64_t> x_shape{c.batch, c.d, c.h, c.w, c.in},
        y_shape{c.batch, c.d, c.h, c.w, 16}, w_shape{16, c.in, 3, 3, 3};
    const Tensor xt = be->upload(x, x_shape), wt = be->upload(w, w_shape),
                 bt = be->upload(bias, {16});
    const std::string what = std::to_string(c.in) + "->16 " + std::to_string(c.batch) + "x" +
                             std::to_string(c.d) + "x" + std::to_string(c.h) + "x" +
                             std::to_string(c.w);
    const std::vector<double> y_ref = conv_same_reference(s, xb, wb, bias.data(), c.in, 16, false);
    std::vector<float> runs[2];
    for (std::vector<float>& run : runs) {
      const uint64_t before = launches("conv3d_lines_bf16_16");
      Tensor y = be->upload(std::vector<float>(static_cast<size_t>(vox * 16), NAN), y_shape);
      be->conv3d(s, xt, wt, &bt, y);
      EXPECT_EQ(launches("conv3d_lines_bf16_16"), before + static_cast<uint64_t>(c.in / 16))
          << what;
      run = be->download(y);
    }
    EXPECT_LE(rel_l2_of(runs[0], y_ref), 5e-5) << "y " << what;
    EXPECT_EQ(runs[0], runs[1]) << "y bits " << what;
    if (c.in != 16) continue;
    // The data gradient of the same 16 -> 16 convolution: a convolution of dy, into 16 channels.
    const std::vector<float> dy = random_vec(static_cast<size_t>(vox * 16), ++seed);
    const std::vector<double> dx_ref =
        conv_same_reference(s, bf16_rounded(dy), wb, nullptr, 16, 16, true);
    const uint64_t before = launches("conv3d_lines_bf16_16");
    Tensor dx = be->upload(std::vector<float>(static_cast<size_t>(vox * 16), NAN), x_shape);
    be->conv3d_backward_data(s, be->upload(dy, y_shape), wt, dx);
    EXPECT_EQ(launches("conv3d_lines_bf16_16"), before + 1) << "dx " << what;
    EXPECT_LE(rel_l2_of(be->download(dx), dx_ref), 5e-5) << "dx " << what;
  }
}

}  // namespace
}  // namespace sb::testing
