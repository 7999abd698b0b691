// The OpenCL backend's convolution paths (issue 27): the STAGEBENCH_CONV_IGEMM knob, conv3d's
// forward and backward implicit GEMMs against the vol2col path (NVIDIA only: they skip on
// devices without mma.sync), and conv_transpose3d's split weight gradient (any device).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "models/ops/opencl/opencl_backend.h"
#include "models/ops/opencl/opencl_backend_impl.h"
#include "tests/ops/op_case.h"
#include "tests/ops/opencl_fixture.h"

namespace sb::testing {
namespace {

// Small shapes with what DynUNet's convolutions have, for both implicit-GEMM tests: 3^3 and 1^3
// kernels, stride 1 and 2, 1 to 64 channels, partial tiles, a single output channel with a bias.
struct Case {
  int64_t in, out, edge;
  int kernel, stride;
  bool bias;
};
constexpr Case cases[] = {{16, 16, 12, 3, 1, false}, {16, 32, 12, 3, 2, true},
                          {32, 64, 10, 3, 2, false}, {64, 32, 7, 3, 1, true},
                          {16, 32, 12, 1, 2, false}, {16, 1, 9, 1, 1, true},
                          {1, 16, 9, 3, 1, false},   {1, 16, 9, 1, 1, true}};

// STAGEBENCH_CONV_NCDHW=channels_last takes conv3d's ncdhw forward calls through the
// channels-last copies on any device (volume_transpose both ways, vol2col between where no
// implicit GEMM exists): what scripts/oclgrind-ci.sh runs volume_transpose by. The values are the
// direct call's, up to the order of the sums; one input channel needs no copy in, one output
// channel none out.
TEST_F(OpsOpenCL, ForcedNcdhwCopiesGiveTheDirectCallsValues) {
  const auto transposes = [this] {
    be->synchronize();
    be->kernel_log()->drain();  // the log counts a launch once its event is read
    const auto& k = be->kernel_log()->kernels();
    const auto it = k.find("volume_transpose");
    return it == k.end() ? uint64_t{0} : it->second.launches;
  };
  uint32_t seed = 90;
  for (const auto& [in, out] : {std::pair<int64_t, int64_t>{3, 5}, {1, 4}, {4, 1}}) {
    Conv3dShape s;
    s.batch = 2, s.in_channels = in, s.out_channels = out, s.d = 5, s.h = 3, s.w = 7;
    const int64_t od = s.out_size(s.d, false), oh = s.out_size(s.h, false),
                  ow = s.out_size(s.w, false);
    const Tensor x =
        be->upload(random_vec(static_cast<size_t>(2 * in * 5 * 3 * 7), ++seed), {2, in, 5, 3, 7});
    const Tensor w =
        be->upload(random_vec(static_cast<size_t>(out * in * 27), ++seed), {out, in, 3, 3, 3});
    const Tensor b = be->upload(random_vec(static_cast<size_t>(out), ++seed), {out});
    Tensor direct = be->empty({2, out, od, oh, ow}), copied = be->empty({2, out, od, oh, ow});
    be->set_ncdhw_copies(false);
    be->conv3d(s, x, w, &b, direct);
    const uint64_t before = transposes();
    be->set_ncdhw_copies(true);
    EXPECT_NE(be->gemm_paths().find("STAGEBENCH_CONV_NCDHW=channels_last"), std::string::npos);
    be->conv3d(s, x, w, &b, copied);
    be->set_ncdhw_copies(false);
    EXPECT_EQ(transposes() - before, uint64_t{in > 1} + uint64_t{out > 1}) << in << "->" << out;
    EXPECT_LE(rel_l2_of(be->download(copied), be->download(direct)), 1e-6) << in << "->" << out;
  }
}

// conv3d's implicit GEMM (NVIDIA only) against the vol2col path on the same inputs, on small
// shapes with what DynUNet's forward convolutions have: 3^3 and 1^3 kernels, stride 1 and 2,
// padding, 1 to 64 channels, partial tiles, a single output channel with a bias, at tf32, f16
// and bf16 (f16 where input channels are a multiple of 8; bf16's other calls at tf32); ncdhw
// calls through channels-last copies (conv3d_ncdhw.cpp). The full-size check is
// probes/conv3d/conv3d_igemm_check (scripts/gpu-conv-igemm.sh).
TEST_F(OpsOpenCL, ConvIgemmMatchesVol2colPath) {
  if (!be->has_mma()) GTEST_SKIP() << "no NVIDIA tensor cores: conv3d stays on vol2col here";
  uint32_t seed = 50;
  for (const Layout3d layout : {Layout3d::ndhwc, Layout3d::ncdhw})
    for (const Precision p : {Precision::tf32, Precision::f16, Precision::bf16})
      for (const Case& c : cases) {
        if (p == Precision::f16 && c.in % 8 != 0) continue;  // vol2col: no 2-byte copies
        Conv3dShape s;
        s.batch = 2, s.in_channels = c.in, s.out_channels = c.out, s.d = s.h = s.w = c.edge;
        s.kernel = c.kernel, s.stride = c.stride, s.padding = c.kernel == 3 ? 1 : 0;
        s.layout = Layout3d::ndhwc, s.precision = p;
        be->set_conv_igemm_knob(ConvIgemmKnob::automatic);
        // ncdhw: through ndhwc copies; bf16 with channels the 2-byte copies cannot take: at tf32
        if (c.in % 8 == 0 || p != Precision::bf16) {
          ASSERT_EQ(be->conv3d_implicit_unavailable(s), "");
        }
        s.layout = layout;
        const bool last = layout == Layout3d::ndhwc;
        const int64_t o = s.out_size(c.edge, false), taps = int64_t{c.kernel} * c.kernel * c.kernel;
        const Tensor x =
            be->upload(random_vec(static_cast<size_t>(2 * c.edge * c.edge * c.edge * c.in), ++seed),
                       last ? std::vector<int64_t>{2, c.edge, c.edge, c.edge, c.in}
                            : std::vector<int64_t>{2, c.in, c.edge, c.edge, c.edge});
        const Tensor w = be->upload(random_vec(static_cast<size_t>(c.out * c.in * taps), ++seed),
                                    {c.out, c.in, c.kernel, c.kernel, c.kernel});
        const Tensor b = be->upload(random_vec(static_cast<size_t>(c.out), ++seed), {c.out});
        const std::vector<float> nan(static_cast<size_t>(2 * o * o * o * c.out), NAN);
        const std::vector<int64_t> y_shape = last ? std::vector<int64_t>{2, o, o, o, c.out}
                                                  : std::vector<int64_t>{2, c.out, o, o, o};
        Tensor y_igemm = be->upload(nan, y_shape);
        Tensor y_cols = be->upload(nan, y_shape);
        be->conv3d(s, x, w, c.bias ? &b : nullptr, y_igemm);
        be->set_conv_igemm_knob(ConvIgemmKnob::off);
        be->conv3d(s, x, w, c.bias ? &b : nullptr, y_cols);
        be->set_conv_igemm_knob(ConvIgemmKnob::automatic);
        // NaN (an unwritten output) fails too
        // bf16's 8-bit mantissa against the columns' tf32 products
        EXPECT_LE(rel_l2_of(be->download(y_igemm), be->download(y_cols)),
                  p == Precision::bf16 ? 2e-2 : 5e-3)
            << (last ? "ndhwc " : "ncdhw ") << precision_name(p) << " " << c.in << "->" << c.out
            << " edge " << c.edge << " k" << c.kernel << " s" << c.stride;
      }
}

// conv3d's backward passes as implicit GEMMs (conv3d_bwd_igemm.cpp, NVIDIA only) against the
// vol2col/col2vol path on small shapes with DynUNet's features: 3^3 and 1^3 kernels, strides 1
// and 2, 1 to 64 channels, partial tiles, a single output channel with dbias, both layouts
// (ncdhw through channels-last copies), tf32 and bf16 (dW and dx in bf16 where the channels
// they copy are multiples of 8, else at tf32). The weight gradient's split reduction must repeat
// bit for bit. The full-size check is `probes/conv3d/conv3d_igemm_check bwd`
// (scripts/gpu-conv-igemm.sh, PHASES=bwd).
TEST_F(OpsOpenCL, ConvBackwardIgemmMatchesVol2colPath) {
  if (!be->has_mma()) {
    Conv3dShape s;
    s.layout = Layout3d::ndhwc, s.precision = Precision::tf32;
    EXPECT_NE(be->conv3d_backward_implicit_unavailable(s, true), "");
    EXPECT_NE(be->conv3d_backward_implicit_unavailable(s, false), "");
    GTEST_SKIP() << "no NVIDIA tensor cores: conv3d's backward passes stay on vol2col here";
  }
  uint32_t seed = 90;
  for (const Layout3d layout : {Layout3d::ndhwc, Layout3d::ncdhw})
    for (const Precision p : {Precision::tf32, Precision::bf16})
      for (const Case& c : cases) {
        Conv3dShape s;
        s.batch = 2, s.in_channels = c.in, s.out_channels = c.out, s.d = s.h = s.w = c.edge;
        s.kernel = c.kernel, s.stride = c.stride, s.padding = c.kernel == 3 ? 1 : 0;
        s.layout = Layout3d::ndhwc, s.precision = p;
        be->set_conv_igemm_knob(ConvIgemmKnob::automatic);
        ASSERT_EQ(be->conv3d_backward_implicit_unavailable(s, true), "");
        if (c.out % 8 == 0 || p != Precision::bf16) {  // else dx at tf32 (no 2-byte copies)
          ASSERT_EQ(be->conv3d_backward_implicit_unavailable(s, false), "");
        }
        s.layout = layout;  // ncdhw: through ndhwc copies
        const bool last = layout == Layout3d::ndhwc;
        const int64_t o = s.out_size(c.edge, false), taps = int64_t{c.kernel} * c.kernel * c.kernel;
        const std::vector<int64_t> x_shape =
            last ? std::vector<int64_t>{2, c.edge, c.edge, c.edge, c.in}
                 : std::vector<int64_t>{2, c.in, c.edge, c.edge, c.edge};
        const std::vector<int64_t> w_shape = {c.out, c.in, c.kernel, c.kernel, c.kernel};
        const Tensor x = be->upload(
            random_vec(static_cast<size_t>(2 * c.edge * c.edge * c.edge * c.in), ++seed), x_shape);
        const Tensor dy = be->upload(random_vec(static_cast<size_t>(2 * o * o * o * c.out), ++seed),
                                     last ? std::vector<int64_t>{2, o, o, o, c.out}
                                          : std::vector<int64_t>{2, c.out, o, o, o});
        const Tensor w =
            be->upload(random_vec(static_cast<size_t>(c.out * c.in * taps), ++seed), w_shape);
        const std::vector<float> nan_w(static_cast<size_t>(c.out * c.in * taps), NAN);
        const std::vector<float> nan_x(static_cast<size_t>(2 * c.edge * c.edge * c.edge * c.in),
                                       NAN);
        const std::vector<float> nan_b(static_cast<size_t>(c.out), NAN);
        Tensor dw[3] = {be->upload(nan_w, w_shape), be->upload(nan_w, w_shape),
                        be->upload(nan_w, w_shape)};
        Tensor db[3] = {be->upload(nan_b, {c.out}), be->upload(nan_b, {c.out}),
                        be->upload(nan_b, {c.out})};
        Tensor dx[2] = {be->upload(nan_x, x_shape), be->upload(nan_x, x_shape)};
        for (int i = 0; i < 3; ++i) {  // igemm twice, then vol2col
          be->set_conv_igemm_knob(i < 2 ? ConvIgemmKnob::automatic : ConvIgemmKnob::off);
          be->conv3d_backward_weights(s, x, dy, dw[i], c.bias ? &db[i] : nullptr);
          if (i != 1) be->conv3d_backward_data(s, dy, w, dx[i == 0 ? 0 : 1]);
        }
        be->set_conv_igemm_knob(ConvIgemmKnob::automatic);
        const std::string what = std::string(last ? "ndhwc " : "ncdhw ") + precision_name(p) + " " +
                                 std::to_string(c.in) + "->" + std::to_string(c.out) + " edge " +
                                 std::to_string(c.edge) + " k" + std::to_string(c.kernel) + " s" +
                                 std::to_string(c.stride);
        const std::vector<float> dw0 = be->download(dw[0]), dw1 = be->download(dw[1]);
        EXPECT_EQ(dw0, dw1) << "dW did not repeat bit for bit: " << what;
        const bool dw_bf16 = p == Precision::bf16 && c.in % 8 == 0 && c.out % 8 == 0;
        EXPECT_LE(rel_l2_of(dw0, be->download(dw[2])), dw_bf16 ? 2e-2 : 5e-3) << "dW " << what;
        EXPECT_LE(rel_l2_of(be->download(dx[0]), be->download(dx[1])),
                  p == Precision::bf16 ? 2e-2 : 5e-3)
            << "dX " << what;
        if (c.bias) {
          EXPECT_EQ(be->download(db[0]), be->download(db[1])) << "dbias did not repeat: " << what;
          EXPECT_LE(rel_l2_of(be->download(db[0]), be->download(db[2])), 1e-5) << "dbias " << what;
        }
      }
}

// dW[o, ci, kz, ky, kx] = sum of x * dy over (n, oz, oy, ox), channels-last, in double.
std::vector<double> conv_dw_reference(const Conv3dShape& s, const std::vector<float>& x,
                                      const std::vector<float>& dy) {
  const int64_t k = s.kernel, od = s.out_size(s.d, false), oh = s.out_size(s.h, false),
                ow = s.out_size(s.w, false), ci = s.in_channels, co = s.out_channels;
  std::vector<double> dw(static_cast<size_t>(co * ci * k * k * k), 0.0);
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t oz = 0; oz < od; ++oz)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          const float* g = &dy[static_cast<size_t>((((n * od + oz) * oh + oy) * ow + ox) * co)];
          for (int64_t kz = 0; kz < k; ++kz)
            for (int64_t ky = 0; ky < k; ++ky)
              for (int64_t kx = 0; kx < k; ++kx) {
                const int64_t z = oz * s.stride - s.padding + kz,
                              y = oy * s.stride - s.padding + ky,
                              xx = ox * s.stride - s.padding + kx;
                if (z < 0 || z >= s.d || y < 0 || y >= s.h || xx < 0 || xx >= s.w) continue;
                const float* v =
                    &x[static_cast<size_t>((((n * s.d + z) * s.h + y) * s.w + xx) * ci)];
                const int64_t tap = (kz * k + ky) * k + kx;
                for (int64_t o = 0; o < co; ++o)
                  for (int64_t c = 0; c < ci; ++c)
                    dw[static_cast<size_t>((o * ci + c) * k * k * k + tap)] += double{g[o]} * v[c];
              }
        }
  return dw;
}

// The bf16 weight gradient (conv3d_dw_bf16_nvidia.cl, NVIDIA only) multiplies x and dy rounded
// to bf16 and accumulates in fp32: against a double reference over the rounded inputs it agrees
// to fp32 accumulation's error (5e-5), far below what the rounding itself moves (about 1.6e-3,
// relative L2), which the tf32 kernel (STAGEBENCH_CONV_DW_BF16=off) shows. Shapes: DynUNet's
// channel counts, stride 1 and 2, 1^3, many slices (24^3 voxels a sample), two output-channel
// tiles (128 channels), partial tiles.
TEST_F(OpsOpenCL, ConvWeightGradBf16MultipliesBf16Values) {
  if (!be->has_mma()) GTEST_SKIP() << "no NVIDIA tensor cores: no bf16 weight gradient here";
  struct Shape {
    int64_t in, out, edge;
    int kernel, stride;
  };
  uint32_t seed = 200;
  for (const Shape& c : {Shape{16, 16, 24, 3, 1}, Shape{16, 32, 12, 3, 2}, Shape{32, 64, 10, 3, 2},
                         Shape{64, 32, 7, 3, 1}, Shape{16, 32, 12, 1, 2}, Shape{32, 128, 8, 3, 1},
                         Shape{8, 24, 9, 3, 1}}) {
    Conv3dShape s;
    s.batch = 2, s.in_channels = c.in, s.out_channels = c.out, s.d = s.h = s.w = c.edge;
    s.kernel = c.kernel, s.stride = c.stride, s.padding = c.kernel == 3 ? 1 : 0;
    s.layout = Layout3d::ndhwc, s.precision = Precision::bf16;
    const int64_t o = s.out_size(c.edge, false), taps = int64_t{c.kernel} * c.kernel * c.kernel;
    const std::vector<float> x =
        random_vec(static_cast<size_t>(2 * c.edge * c.edge * c.edge * c.in), ++seed);
    const std::vector<float> dy = random_vec(static_cast<size_t>(2 * o * o * o * c.out), ++seed);
    const std::vector<int64_t> w_shape = {c.out, c.in, c.kernel, c.kernel, c.kernel};
    const Tensor xt = be->upload(x, {2, c.edge, c.edge, c.edge, c.in});
    const Tensor dyt = be->upload(dy, {2, o, o, o, c.out});
    const std::vector<double> ref = conv_dw_reference(s, bf16_rounded(x), bf16_rounded(dy));
    const std::vector<float> want(ref.begin(), ref.end());
    const std::string what = std::to_string(c.in) + "->" + std::to_string(c.out) + " edge " +
                             std::to_string(c.edge) + " k" + std::to_string(c.kernel) + " s" +
                             std::to_string(c.stride);
    std::vector<float> got[2];
    for (int i = 0; i < 2; ++i) {
      be->set_conv_dw_bf16_knob(i == 0 ? ConvDwBf16Knob::automatic : ConvDwBf16Knob::off);
      Tensor dw =
          be->upload(std::vector<float>(static_cast<size_t>(c.out * c.in * taps), NAN), w_shape);
      be->conv3d_backward_weights(s, xt, dyt, dw, nullptr);
      got[i] = be->download(dw);
    }
    be->set_conv_dw_bf16_knob(ConvDwBf16Knob::automatic);
    EXPECT_LE(rel_l2_of(got[0], want), 5e-5) << "bf16 dW " << what;
    EXPECT_GT(rel_l2_of(got[1], want), 5e-4) << "tf32 dW (knob off) " << what;
  }
}

// STAGEBENCH_CONV_DW_TAPS=lines and =ring: 3^3 stride-1 bf16 weight gradients of 16 or 32
// channels take conv3d_dw_taps_bf16_* / conv3d_dw_taps_ring_bf16_*
// (kernels/conv3d_dw_taps_bf16_nvidia.cl, NVIDIA only), which stage each output line's x rows
// once for its 27 taps (the ring keeps those the next line shares). Same tolerance as the
// im2col-tile kernel against the double reference over bf16-rounded inputs; the launch count shows
// which kernel ran. Shapes: every channel pair, lines of 16, 32 and 64 voxels, padding on every
// face, several slices, slices that start inside a plane and cross planes and samples (the ring's
// fresh copies).
TEST_F(OpsOpenCL, ConvWeightGradTapsKernelMultipliesBf16Values) {
  if (!be->has_mma()) GTEST_SKIP() << "no NVIDIA tensor cores: no bf16 weight gradient here";
  const auto launches = [this](const std::string& prefix) {
    be->synchronize();
    be->kernel_log()->drain();
    uint64_t n = 0;
    for (const auto& [name, k] : be->kernel_log()->kernels())
      if (name.rfind(prefix, 0) == 0) n += k.launches;
    return n;
  };
  struct Shape {
    int64_t in, out, edge, batch, groups;  // groups: STAGEBENCH_CONV_DW_GROUPS, 0 = default
  };
  uint32_t seed = 400;
  for (const Shape& c : {Shape{16, 16, 16, 2, 0}, Shape{16, 16, 64, 1, 0}, Shape{32, 32, 32, 1, 0},
                         Shape{16, 32, 16, 3, 7}, Shape{32, 16, 16, 2, 0}}) {
    Conv3dShape s;
    s.batch = c.batch, s.in_channels = c.in, s.out_channels = c.out;
    s.d = s.h = s.w = c.edge, s.kernel = 3, s.stride = 1, s.padding = 1;
    s.layout = Layout3d::ndhwc, s.precision = Precision::bf16;
    const int64_t vox = c.batch * c.edge * c.edge * c.edge;
    const std::vector<float> x = random_vec(static_cast<size_t>(vox * c.in), ++seed);
    const std::vector<float> dy = random_vec(static_cast<size_t>(vox * c.out), ++seed);
    const std::vector<int64_t> w_shape = {c.out, c.in, 3, 3, 3};
    const Tensor xt = be->upload(x, {c.batch, c.edge, c.edge, c.edge, c.in});
    const Tensor dyt = be->upload(dy, {c.batch, c.edge, c.edge, c.edge, c.out});
    const std::vector<double> ref = conv_dw_reference(s, bf16_rounded(x), bf16_rounded(dy));
    const std::vector<float> want(ref.begin(), ref.end());
    const std::string what = std::to_string(c.in) + "->" + std::to_string(c.out) + " edge " +
                             std::to_string(c.edge) + " batch " + std::to_string(c.batch);
    if (c.groups > 0) ::setenv("STAGEBENCH_CONV_DW_GROUPS", std::to_string(c.groups).c_str(), 1);
    for (const std::string mode : {"lines", "ring"}) {
      const std::string prefix =
          mode == "ring" ? "conv3d_dw_taps_ring_bf16_" : "conv3d_dw_taps_bf16_";
      ::setenv("STAGEBENCH_CONV_DW_TAPS", mode.c_str(), 1);
      const uint64_t before = launches(prefix);
      Tensor dw =
          be->upload(std::vector<float>(static_cast<size_t>(c.out * c.in * 27), NAN), w_shape);
      be->conv3d_backward_weights(s, xt, dyt, dw, nullptr);
      ::unsetenv("STAGEBENCH_CONV_DW_TAPS");
      EXPECT_EQ(launches(prefix), before + 1) << mode << " " << what;
      EXPECT_LE(rel_l2_of(be->download(dw), want), 5e-5) << mode << " dW " << what;
    }
    ::unsetenv("STAGEBENCH_CONV_DW_GROUPS");
  }
}

// Backend::hold_read_only on OpenCL: holds are counted per storage; while x is held, its bf16
// copy is made by the first bf16 convolution that reads it and reused by the next (the forward
// pass and the weight gradient here), giving the same bits as converting at each call; the
// copy goes with the last release. Convolutions on NVIDIA only (bf16 needs the mma kernels).
TEST_F(OpsOpenCL, HeldTensorIsConvertedToBf16Once) {
  const Tensor t = be->upload(random_vec(64, 300), {64});
  be->hold_read_only(t);
  be->hold_read_only(t.reshaped({8, 8}));  // the same storage
  EXPECT_EQ(be->held_tensors(), 1u);
  be->release_read_only(t);
  EXPECT_EQ(be->held_tensors(), 1u);
  be->release_read_only(t);
  EXPECT_EQ(be->held_tensors(), 0u);
  be->release_read_only(t);  // an unmatched release changes nothing
  EXPECT_EQ(be->held_tensors(), 0u);
  if (!be->has_mma()) GTEST_SKIP() << "no NVIDIA tensor cores: no bf16 convolution here";
  Conv3dShape s;
  s.batch = 2, s.in_channels = s.out_channels = 16, s.d = s.h = s.w = 10;
  s.kernel = 3, s.stride = 1, s.padding = 1;
  s.layout = Layout3d::ndhwc, s.precision = Precision::bf16;
  const Tensor x = be->upload(random_vec(2 * 1000 * 16, 301), {2, 10, 10, 10, 16});
  const Tensor dy = be->upload(random_vec(2 * 1000 * 16, 302), {2, 10, 10, 10, 16});
  const Tensor w = be->upload(random_vec(16 * 16 * 27, 303), {16, 16, 3, 3, 3});
  std::vector<float> y[2], dw[2];
  for (int held = 0; held < 2; ++held) {
    if (held) be->hold_read_only(x);
    Tensor yt = be->empty({2, 10, 10, 10, 16}), dwt = be->empty({16, 16, 3, 3, 3});
    be->conv3d(s, x, w, nullptr, yt);
    be->conv3d_backward_weights(s, x, dy, dwt, nullptr);
    if (held) {
      EXPECT_EQ(be->held_bf16_copies(), 1u);
    }
    y[held] = be->download(yt), dw[held] = be->download(dwt);
    if (held) be->release_read_only(x);
  }
  EXPECT_EQ(be->held_tensors(), 0u);
  EXPECT_EQ(y[0], y[1]);
  EXPECT_EQ(dw[0], dw[1]);
}

// conv_transpose3d's weight gradient with its reduction split (conv3d_gemm_split_k) against the
// unsplit GEMMs (STAGEBENCH_CONV_IGEMM=off), in both layouts: the same f32 sums in another
// order, and the same bits on every run. Sizes give 6 (ndhwc) and 3 (ncdhw, per sample) slices.
TEST_F(OpsOpenCL, ConvTranspose3dWeightGradSplitMatchesUnsplit) {
  uint32_t seed = 120;
  for (const Layout3d layout : {Layout3d::ndhwc, Layout3d::ncdhw}) {
    Conv3dShape s;
    s.batch = 2, s.in_channels = 8, s.out_channels = 4, s.d = s.h = s.w = 12;
    s.kernel = s.stride = 2, s.padding = 0, s.layout = layout;
    const int64_t e = 12, o = 24;
    const bool last = layout == Layout3d::ndhwc;
    const Tensor x = be->upload(
        random_vec(static_cast<size_t>(2 * 8 * e * e * e), ++seed),
        last ? std::vector<int64_t>{2, e, e, e, 8} : std::vector<int64_t>{2, 8, e, e, e});
    const Tensor dy = be->upload(
        random_vec(static_cast<size_t>(2 * 4 * o * o * o), ++seed),
        last ? std::vector<int64_t>{2, o, o, o, 4} : std::vector<int64_t>{2, 4, o, o, o});
    const std::vector<float> nan(8 * 4 * 8, NAN);
    Tensor dw[3] = {be->upload(nan, {8, 4, 2, 2, 2}), be->upload(nan, {8, 4, 2, 2, 2}),
                    be->upload(nan, {8, 4, 2, 2, 2})};
    for (int i = 0; i < 3; ++i) {
      be->set_conv_igemm_knob(i < 2 ? ConvIgemmKnob::automatic : ConvIgemmKnob::off);
      be->conv_transpose3d_backward_weights(s, x, dy, dw[i], nullptr);
    }
    be->set_conv_igemm_knob(ConvIgemmKnob::automatic);
    const std::vector<float> split = be->download(dw[0]);
    EXPECT_EQ(split, be->download(dw[1])) << (last ? "ndhwc" : "ncdhw");
    EXPECT_LE(rel_l2_of(split, be->download(dw[2])), 1e-5) << (last ? "ndhwc" : "ncdhw");
  }
}

}  // namespace
}  // namespace sb::testing
