// Cases of PyTorch's ConvTranspose3d and its two backward ops: against a double-precision
// reference written from the definition, y[n, co, i s - p + t] += x[n, ci, i] w[ci, co, t], on
// both layouts, with and without bias; the backward ops also against finite differences of the
// forward op on the same backend. k2 s2 p0 (DynUNet's upsampling) runs everywhere; the general
// k3 s2 p1 only where the backend runs it (the OpenCL backend takes kernel == stride, padding 0).
#include <string>
#include <vector>

#include "tests/ops/gradient_check.h"
#include "tests/ops/op_case.h"
#include "tests/ops/reference.h"

namespace sb::testing {
namespace {

struct Geometry {
  const char* name;
  int kernel, stride, padding;
};
constexpr Geometry kGeometries[] = {{"k2s2p0", 2, 2, 0}, {"k3s2p1", 3, 2, 1}};
constexpr Layout3d kLayouts[] = {Layout3d::ncdhw, Layout3d::ndhwc};

const char* layout_text(Layout3d l) {
  return l == Layout3d::ndhwc ? "ndhwc" : "ncdhw";
}

std::string name_of(const char* what, const Geometry& g, Layout3d l) {
  return std::string(what) + "_" + g.name + "_" + layout_text(l);
}

// The general geometry runs on the backends that take it.
std::function<std::string(Backend&)> needs_geometry(const Geometry& g) {
  if (g.kernel == g.stride && g.padding == 0) return {};
  return [](Backend& be) -> std::string {
    return be.name() == "opencl" ? "the OpenCL backend runs kernel == stride, padding 0 only" : "";
  };
}

// Element offsets of one activation tensor in its layout.
struct TransposedVolume {
  int64_t c, d, h, w;
  bool channels_last;
  int64_t size(int64_t batch) const { return batch * c * d * h * w; }
  std::vector<int64_t> shape(int64_t batch) const {
    return channels_last ? std::vector<int64_t>{batch, d, h, w, c}
                         : std::vector<int64_t>{batch, c, d, h, w};
  }
  int64_t at(int64_t n, int64_t ch, int64_t z, int64_t y, int64_t x) const {
    return channels_last ? (((n * d + z) * h + y) * w + x) * c + ch
                         : (((n * c + ch) * d + z) * h + y) * w + x;
  }
};

// N = 2, 3 -> 2 channels, a 3x2x3 input (sides differ so that swapped axes show); seeded data.
struct TransposedInputs {
  Conv3dShape s;
  TransposedVolume vi, vo;
  int64_t k3;
  Vec x, w, bias, dy;
  TransposedInputs(const Geometry& g, Layout3d layout, unsigned seed) {
    s.batch = 2, s.in_channels = 3, s.out_channels = 2;
    s.d = 3, s.h = 2, s.w = 3;
    s.kernel = g.kernel, s.stride = g.stride, s.padding = g.padding, s.layout = layout;
    const bool last = layout == Layout3d::ndhwc;
    vi = {s.in_channels, s.d, s.h, s.w, last};
    vo = {s.out_channels, s.out_size(s.d, true), s.out_size(s.h, true), s.out_size(s.w, true),
          last};
    k3 = int64_t{g.kernel} * g.kernel * g.kernel;
    x = random_vec(vi.size(s.batch), seed);
    w = random_vec(s.in_channels * s.out_channels * k3, seed + 1);
    bias = random_vec(s.out_channels, seed + 2);
    dy = random_vec(vo.size(s.batch), seed + 3);
  }
  std::vector<int64_t> x_shape() const { return vi.shape(s.batch); }
  std::vector<int64_t> y_shape() const { return vo.shape(s.batch); }
  std::vector<int64_t> w_shape() const {
    return {s.in_channels, s.out_channels, s.kernel, s.kernel, s.kernel};
  }

  // Calls f(n, ci, input voxel offset, co, tap offset, output voxel offset) for every
  // contribution x[n, ci, i] w[ci, co, t] -> y[n, co, i s - p + t] of the definition.
  template <class F>
  void each_contribution(F&& f) const {
    const int k = s.kernel;
    for (int64_t n = 0; n < s.batch; ++n)
      for (int64_t ci = 0; ci < s.in_channels; ++ci)
        for (int64_t iz = 0; iz < s.d; ++iz)
          for (int64_t iy = 0; iy < s.h; ++iy)
            for (int64_t ix = 0; ix < s.w; ++ix)
              for (int64_t co = 0; co < s.out_channels; ++co)
                for (int a = 0; a < k; ++a)
                  for (int b = 0; b < k; ++b)
                    for (int c = 0; c < k; ++c) {
                      const int64_t oz = iz * s.stride - s.padding + a,
                                    oy = iy * s.stride - s.padding + b,
                                    ox = ix * s.stride - s.padding + c;
                      if (oz < 0 || oz >= vo.d || oy < 0 || oy >= vo.h || ox < 0 || ox >= vo.w)
                        continue;
                      f(vi.at(n, ci, iz, iy, ix),
                        (ci * s.out_channels + co) * k3 + (a * k + b) * k + c,
                        vo.at(n, co, oz, oy, ox));
                    }
  }

  DVec forward_ref(const Vec& xv, const Vec& wv, const Vec* b) const {
    DVec y(vo.size(s.batch), 0.0);
    if (b != nullptr)
      for (int64_t n = 0; n < s.batch; ++n)
        for (int64_t co = 0; co < s.out_channels; ++co)
          for (int64_t z = 0; z < vo.d; ++z)
            for (int64_t yy = 0; yy < vo.h; ++yy)
              for (int64_t xx = 0; xx < vo.w; ++xx) y[vo.at(n, co, z, yy, xx)] = (*b)[co];
    each_contribution([&](int64_t i, int64_t t, int64_t o) { y[o] += double(xv[i]) * wv[t]; });
    return y;
  }
  DVec backward_data_ref() const {
    DVec dx(x.size(), 0.0);
    each_contribution([&](int64_t i, int64_t t, int64_t o) { dx[i] += double(dy[o]) * w[t]; });
    return dx;
  }
  DVec backward_weights_ref() const {
    DVec dw(w.size(), 0.0);
    each_contribution([&](int64_t i, int64_t t, int64_t o) { dw[t] += double(x[i]) * dy[o]; });
    return dw;
  }
  DVec backward_bias_ref() const {
    DVec db(s.out_channels, 0.0);
    for (int64_t n = 0; n < s.batch; ++n)
      for (int64_t co = 0; co < s.out_channels; ++co)
        for (int64_t z = 0; z < vo.d; ++z)
          for (int64_t yy = 0; yy < vo.h; ++yy)
            for (int64_t xx = 0; xx < vo.w; ++xx) db[co] += dy[vo.at(n, co, z, yy, xx)];
    return db;
  }

  // dot(dy, conv_transpose3d(x, w, bias)) on the backend: the scalar whose gradients the
  // backward ops compute.
  double objective(Backend& be, const Vec& xv, const Vec& wv, const Vec& bv) const {
    Tensor y = be.empty(y_shape());
    const Tensor bt = up(be, bv, {s.out_channels});
    be.conv_transpose3d(s, up(be, xv, x_shape()), up(be, wv, w_shape()), &bt, y);
    return dot(dy, be.download(y));
  }
};

constexpr double kTol = 1e-4;

void add_forward(std::vector<OpCase>& c, const Geometry& g, Layout3d l, bool with_bias) {
  c.push_back(
      {Op::conv_transpose3d, name_of(with_bias ? "reference_bias" : "reference_no_bias", g, l),
       needs_geometry(g), [g, l, with_bias](Backend& be) {
         const TransposedInputs in(g, l, 700);
         Tensor y = be.empty(in.y_shape());
         const Tensor b = up(be, in.bias, {in.s.out_channels});
         be.conv_transpose3d(in.s, up(be, in.x, in.x_shape()), up(be, in.w, in.w_shape()),
                             with_bias ? &b : nullptr, y);
         return std::vector<Check>{{"y", be.download(y),
                                    in.forward_ref(in.x, in.w, with_bias ? &in.bias : nullptr),
                                    Precision::f32, kTol}};
       }});
}

void add_backward_data(std::vector<OpCase>& c, const Geometry& g, Layout3d l) {
  c.push_back({Op::conv_transpose3d_backward_data, name_of("reference", g, l), needs_geometry(g),
               [g, l](Backend& be) {
                 const TransposedInputs in(g, l, 710);
                 Tensor dx = be.empty(in.x_shape());
                 be.conv_transpose3d_backward_data(in.s, up(be, in.dy, in.y_shape()),
                                                   up(be, in.w, in.w_shape()), dx);
                 return std::vector<Check>{
                     {"dx", be.download(dx), in.backward_data_ref(), Precision::f32, kTol}};
               }});
  c.push_back({Op::conv_transpose3d_backward_data, name_of("gradient", g, l), needs_geometry(g),
               [g, l](Backend& be) {
                 const TransposedInputs in(g, l, 720);
                 Tensor dx = be.empty(in.x_shape());
                 be.conv_transpose3d_backward_data(in.s, up(be, in.dy, in.y_shape()),
                                                   up(be, in.w, in.w_shape()), dx);
                 return std::vector<Check>{gradient_matches(
                     "dx", be.download(dx), numeric_gradient(in.x, [&](const Vec& v) {
                       return in.objective(be, v, in.w, in.bias);
                     }))};
               }});
}

void add_backward_weights(std::vector<OpCase>& c, const Geometry& g, Layout3d l, bool with_bias) {
  c.push_back(
      {Op::conv_transpose3d_backward_weights,
       name_of(with_bias ? "reference_dbias" : "reference_no_dbias", g, l), needs_geometry(g),
       [g, l, with_bias](Backend& be) {
         const TransposedInputs in(g, l, 730);
         Tensor dw = be.empty(in.w_shape()), db = be.empty({in.s.out_channels});
         be.conv_transpose3d_backward_weights(in.s, up(be, in.x, in.x_shape()),
                                              up(be, in.dy, in.y_shape()), dw,
                                              with_bias ? &db : nullptr);
         std::vector<Check> out{
             {"dw", be.download(dw), in.backward_weights_ref(), Precision::f32, kTol}};
         if (with_bias)
           out.push_back({"dbias", be.download(db), in.backward_bias_ref(), Precision::f32, kTol});
         return out;
       }});
  if (!with_bias) return;
  c.push_back({Op::conv_transpose3d_backward_weights, name_of("gradient", g, l), needs_geometry(g),
               [g, l](Backend& be) {
                 const TransposedInputs in(g, l, 740);
                 Tensor dw = be.empty(in.w_shape()), db = be.empty({in.s.out_channels});
                 be.conv_transpose3d_backward_weights(in.s, up(be, in.x, in.x_shape()),
                                                      up(be, in.dy, in.y_shape()), dw, &db);
                 return std::vector<Check>{
                     gradient_matches("dw", be.download(dw),
                                      numeric_gradient(in.w,
                                                       [&](const Vec& v) {
                                                         return in.objective(be, in.x, v, in.bias);
                                                       })),
                     gradient_matches("dbias", be.download(db),
                                      numeric_gradient(in.bias, [&](const Vec& v) {
                                        return in.objective(be, in.x, in.w, v);
                                      }))};
               }});
}

// bf16 products, channels-last k2 s2 with channels in whole 16-byte chunks, odd sizes, a bias,
// where NVIDIA runs the three passes on the bf16 implicit GEMMs (conv_transpose3d_igemm.cpp):
// against references over the bf16-rounded operands (dbias: fp32's), as conv3d's bf16 cases,
// on backends with tf32 (the portable ones compute bf16 transposed convolutions in f32, whose
// distance from a bf16-rounded reference is about bf16's own tolerance).
void add_bf16(std::vector<OpCase>& c) {
  const auto needs = needs_precision(Precision::tf32);
  auto inputs = [](unsigned seed) {
    TransposedInputs in({"k2s2p0", 2, 2, 0}, Layout3d::ndhwc, seed);
    in.s.in_channels = 16, in.s.out_channels = 8, in.s.d = 3, in.s.h = 5, in.s.w = 2;
    in.s.precision = Precision::bf16;
    in.vi = {16, 3, 5, 2, true};
    in.vo = {8, 6, 10, 4, true};
    in.x = random_vec(in.vi.size(in.s.batch), seed);
    in.w = random_vec(16 * 8 * 8, seed + 1);
    in.bias = random_vec(8, seed + 2);
    in.dy = random_vec(in.vo.size(in.s.batch), seed + 3);
    return in;
  };
  c.push_back(
      {Op::conv_transpose3d, "bf16_k2s2p0_ndhwc_bias", needs, [inputs](Backend& be) {
         const TransposedInputs in = inputs(750);
         Tensor y = be.empty(in.y_shape());
         const Tensor b = up(be, in.bias, {in.s.out_channels});
         be.conv_transpose3d(in.s, up(be, in.x, in.x_shape()), up(be, in.w, in.w_shape()), &b, y);
         return std::vector<Check>{
             {"y", be.download(y), in.forward_ref(bf16_rounded(in.x), bf16_rounded(in.w), &in.bias),
              Precision::bf16}};
       }});
  c.push_back(
      {Op::conv_transpose3d_backward_data, "bf16_k2s2p0_ndhwc", needs, [inputs](Backend& be) {
         TransposedInputs in = inputs(760);
         Tensor dx = be.empty(in.x_shape());
         be.conv_transpose3d_backward_data(in.s, up(be, in.dy, in.y_shape()),
                                           up(be, in.w, in.w_shape()), dx);
         in.dy = bf16_rounded(in.dy), in.w = bf16_rounded(in.w);
         return std::vector<Check>{
             {"dx", be.download(dx), in.backward_data_ref(), Precision::bf16}};
       }});
  c.push_back({Op::conv_transpose3d_backward_weights, "bf16_k2s2p0_ndhwc_dbias", needs,
               [inputs](Backend& be) {
                 TransposedInputs in = inputs(770);
                 Tensor dw = be.empty(in.w_shape()), db = be.empty({in.s.out_channels});
                 be.conv_transpose3d_backward_weights(in.s, up(be, in.x, in.x_shape()),
                                                      up(be, in.dy, in.y_shape()), dw, &db);
                 const DVec db_ref = in.backward_bias_ref();
                 in.x = bf16_rounded(in.x), in.dy = bf16_rounded(in.dy);
                 return std::vector<Check>{
                     {"dw", be.download(dw), in.backward_weights_ref(), Precision::bf16},
                     {"dbias", be.download(db), db_ref, Precision::f32, kTol}};
               }});
}

// The cpu backend's bf16 transposed convolution (oneDNN), DynUNet's k2 s2 upsampling: the three
// passes with a bias, both layouts, 32 channels in and 16 out (whole blocks for oneDNN's bf16
// kernels), against the fp64 reference over the fp32 inputs at bf16's tolerance and the one over
// the bf16-rounded inputs at fp32's (an fp32 product misses it: each output sums 32 products);
// dbias sums the bf16 dy.
void add_cpu_bf16(std::vector<OpCase>& c) {
  for (const Layout3d l : kLayouts) {
    c.push_back({Op::conv_transpose3d, std::string("cpu_bf16_k2s2p0_") + layout_text(l),
                 needs_cpu_bf16_convolutions(), [l](Backend& be) {
                   TransposedInputs in({"k2s2p0", 2, 2, 0}, l, 780);
                   const bool last = l == Layout3d::ndhwc;
                   in.s.batch = 1, in.s.in_channels = 32, in.s.out_channels = 16;
                   in.s.d = 3, in.s.h = 5, in.s.w = 2;
                   in.s.precision = Precision::bf16;
                   in.vi = {32, 3, 5, 2, last};
                   in.vo = {16, 6, 10, 4, last};
                   in.x = random_vec(in.vi.size(1), 781);
                   in.w = random_vec(32 * 16 * 8, 782);
                   in.bias = random_vec(16, 783);
                   in.dy = random_vec(in.vo.size(1), 784);
                   Tensor y = be.empty(in.y_shape()), dx = be.empty(in.x_shape()),
                          dw = be.empty(in.w_shape()), db = be.empty({16});
                   const Tensor b = up(be, in.bias, {16}), x = up(be, in.x, in.x_shape()),
                                w = up(be, in.w, in.w_shape()), dy = up(be, in.dy, in.y_shape());
                   be.conv_transpose3d(in.s, x, w, &b, y);
                   be.conv_transpose3d_backward_data(in.s, dy, w, dx);
                   be.conv_transpose3d_backward_weights(in.s, x, dy, dw, &db);
                   const Vec got_y = be.download(y), got_dx = be.download(dx),
                             got_dw = be.download(dw), got_db = be.download(db);
                   std::vector<Check> out{
                       {"y", got_y, in.forward_ref(in.x, in.w, &in.bias), Precision::bf16},
                       {"dx", got_dx, in.backward_data_ref(), Precision::bf16},
                       {"dw", got_dw, in.backward_weights_ref(), Precision::bf16},
                       {"dbias", got_db, in.backward_bias_ref(), Precision::bf16}};
                   in.x = bf16_rounded(in.x), in.w = bf16_rounded(in.w);
                   in.dy = bf16_rounded(in.dy);
                   out.push_back({"y of bf16 products", got_y, in.forward_ref(in.x, in.w, &in.bias),
                                  Precision::f32, kTol});
                   out.push_back({"dx of bf16 products", got_dx, in.backward_data_ref(),
                                  Precision::f32, kTol});
                   out.push_back({"dw of bf16 products", got_dw, in.backward_weights_ref(),
                                  Precision::f32, kTol});
                   out.push_back(
                       {"dbias of bf16 dy", got_db, in.backward_bias_ref(), Precision::f32, kTol});
                   return out;
                 }});
  }
}

}  // namespace

void add_conv_transpose3d_cases(std::vector<OpCase>& cases) {
  add_bf16(cases);
  add_cpu_bf16(cases);
  for (const Geometry& g : kGeometries)
    for (Layout3d l : kLayouts)
      for (bool with_bias : {true, false}) add_forward(cases, g, l, with_bias);
  for (const Geometry& g : kGeometries)
    for (Layout3d l : kLayouts) add_backward_data(cases, g, l);
  for (const Geometry& g : kGeometries)
    for (Layout3d l : kLayouts)
      for (bool with_bias : {true, false}) add_backward_weights(cases, g, l, with_bias);
}

}  // namespace sb::testing
