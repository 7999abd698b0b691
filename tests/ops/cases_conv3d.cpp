// Op cases: conv3d and its two backward ops (PyTorch's Conv3d) on both activation layouts, at
// strides 1 and 2 and kernels 3 and 1, with and without bias, against double references written
// from the definition; the backward ops also against central finite differences of conv3d run on
// the same backend (gradient_check.h). Spatial sizes differ per axis (5, 4, 6) so that a swapped
// axis shows, and at stride 2 with kernel 1 some input voxels feed no output (their dx is 0).
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "tests/ops/gradient_check.h"
#include "tests/ops/op_case.h"
#ifdef STAGEBENCH_HAVE_OPENCL
#include "models/ops/opencl/opencl_backend_impl.h"
#endif

namespace sb::testing {
namespace {

struct Config {
  Layout3d layout;
  int kernel, stride, padding;
};

constexpr Config kConfigs[] = {{Layout3d::ncdhw, 3, 1, 1}, {Layout3d::ncdhw, 3, 2, 1},
                               {Layout3d::ncdhw, 1, 1, 0}, {Layout3d::ncdhw, 1, 2, 0},
                               {Layout3d::ndhwc, 3, 1, 1}, {Layout3d::ndhwc, 3, 2, 1},
                               {Layout3d::ndhwc, 1, 1, 0}, {Layout3d::ndhwc, 1, 2, 0}};

// The finite-difference checks: fewer, smaller shapes (each costs a forward per element).
constexpr Config kGradientConfigs[] = {
    {Layout3d::ncdhw, 3, 1, 1}, {Layout3d::ndhwc, 3, 2, 1}, {Layout3d::ndhwc, 1, 2, 0}};

std::string config_name(const Config& c) {
  return std::string(c.layout == Layout3d::ncdhw ? "ncdhw" : "ndhwc") + "_k" +
         std::to_string(c.kernel) + "_s" + std::to_string(c.stride);
}

Conv3dShape shape_of(const Config& c, bool small) {
  small = small || small_shapes();  // op_case.h: every case at the gradient checks' shape
  Conv3dShape s;
  s.batch = small ? 1 : 2;
  s.in_channels = small ? 2 : 3;
  s.out_channels = small ? 3 : 4;
  s.d = small ? 4 : 5;
  s.h = small ? 3 : 4;
  s.w = small ? 5 : 6;
  s.kernel = c.kernel;
  s.stride = c.stride;
  s.padding = c.padding;
  s.layout = c.layout;
  return s;
}

std::vector<int64_t> volume(const Conv3dShape& s, int64_t c, int64_t d, int64_t h, int64_t w) {
  if (s.layout == Layout3d::ncdhw) return {s.batch, c, d, h, w};
  return {s.batch, d, h, w, c};
}
std::vector<int64_t> x_shape(const Conv3dShape& s) {
  return volume(s, s.in_channels, s.d, s.h, s.w);
}
std::vector<int64_t> y_shape(const Conv3dShape& s) {
  return volume(s, s.out_channels, s.out_size(s.d, false), s.out_size(s.h, false),
                s.out_size(s.w, false));
}
std::vector<int64_t> w_shape(const Conv3dShape& s) {
  return {s.out_channels, s.in_channels, s.kernel, s.kernel, s.kernel};
}
int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Offset of (n, c, z, y, x) in a [N, C, D, H, W] volume stored in the shape's layout.
int64_t at(const Conv3dShape& s, int64_t C, int64_t D, int64_t H, int64_t W, int64_t n, int64_t c,
           int64_t z, int64_t y, int64_t x) {
  if (s.layout == Layout3d::ncdhw) return (((n * C + c) * D + z) * H + y) * W + x;
  return (((n * D + z) * H + y) * W + x) * C + c;
}

// Calls f(n, o, c, oz, oy, ox, kz, ky, kx, x offset, y offset, w offset) for every product of
// the convolution's definition: y[n, o, oz, oy, ox] += w[o, c, kz, ky, kx] x[n, c, z, y, x] with
// z = oz stride - padding + kz (likewise y, x) inside the input.
template <class F>
void for_each_product(const Conv3dShape& s, F&& f) {
  const int64_t od = s.out_size(s.d, false), oh = s.out_size(s.h, false),
                ow = s.out_size(s.w, false), k = s.kernel;
  const int64_t ci = s.in_channels, co = s.out_channels;
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t o = 0; o < co; ++o)
      for (int64_t oz = 0; oz < od; ++oz)
        for (int64_t oy = 0; oy < oh; ++oy)
          for (int64_t ox = 0; ox < ow; ++ox)
            for (int64_t c = 0; c < ci; ++c)
              for (int64_t kz = 0; kz < k; ++kz)
                for (int64_t ky = 0; ky < k; ++ky)
                  for (int64_t kx = 0; kx < k; ++kx) {
                    const int64_t z = oz * s.stride - s.padding + kz,
                                  y = oy * s.stride - s.padding + ky,
                                  x = ox * s.stride - s.padding + kx;
                    if (z < 0 || z >= s.d || y < 0 || y >= s.h || x < 0 || x >= s.w) continue;
                    f(at(s, ci, s.d, s.h, s.w, n, c, z, y, x),
                      at(s, co, od, oh, ow, n, o, oz, oy, ox),
                      (((o * ci + c) * k + kz) * k + ky) * k + kx);
                  }
}

DVec conv3d_ref(const Conv3dShape& s, const Vec& x, const Vec& w, const Vec* bias) {
  DVec y(numel(y_shape(s)), 0.0);
  if (bias) {
    const int64_t voxels = static_cast<int64_t>(y.size()) / (s.batch * s.out_channels);
    for (int64_t n = 0; n < s.batch; ++n)
      for (int64_t o = 0; o < s.out_channels; ++o)
        for (int64_t v = 0; v < voxels; ++v) {
          // v walks the voxels in (z, y, x) order whatever the layout.
          const int64_t ow = s.out_size(s.w, false), oh = s.out_size(s.h, false);
          y[at(s, s.out_channels, s.out_size(s.d, false), oh, ow, n, o, v / (oh * ow), v / ow % oh,
               v % ow)] = (*bias)[o];
        }
  }
  for_each_product(s, [&](int64_t xi, int64_t yi, int64_t wi) { y[yi] += double(w[wi]) * x[xi]; });
  return y;
}

DVec backward_data_ref(const Conv3dShape& s, const Vec& dy, const Vec& w) {
  DVec dx(numel(x_shape(s)), 0.0);
  for_each_product(s,
                   [&](int64_t xi, int64_t yi, int64_t wi) { dx[xi] += double(w[wi]) * dy[yi]; });
  return dx;
}

void backward_weights_ref(const Conv3dShape& s, const Vec& x, const Vec& dy, DVec& dw,
                          DVec& dbias) {
  dw.assign(numel(w_shape(s)), 0.0);
  for_each_product(s,
                   [&](int64_t xi, int64_t yi, int64_t wi) { dw[wi] += double(x[xi]) * dy[yi]; });
  dbias.assign(s.out_channels, 0.0);
  const int64_t per_sample = numel(y_shape(s)) / s.batch;
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t i = 0; i < per_sample; ++i) {
      const int64_t o =
          s.layout == Layout3d::ncdhw ? i / (per_sample / s.out_channels) : i % s.out_channels;
      dbias[o] += dy[n * per_sample + i];
    }
}

struct ConvInputs {
  Conv3dShape s;
  Vec x, w, bias, dy;
  ConvInputs(const Config& c, bool small, unsigned seed)
      : s(shape_of(c, small)),
        x(random_vec(numel(x_shape(s)), seed)),
        w(random_vec(numel(w_shape(s)), seed + 1)),
        bias(random_vec(s.out_channels, seed + 2)),
        dy(random_vec(numel(y_shape(s)), seed + 3)) {}
  ConvInputs(const Conv3dShape& shape, unsigned seed)
      : s(shape),
        x(random_vec(numel(x_shape(s)), seed)),
        w(random_vec(numel(w_shape(s)), seed + 1)),
        bias(random_vec(s.out_channels, seed + 2)),
        dy(random_vec(numel(y_shape(s)), seed + 3)) {}
};

// y = conv3d(x, w) + bias on the backend.
Vec forward(Backend& be, const Conv3dShape& s, const Vec& x, const Vec& w, const Vec* bias) {
  Tensor y = be.empty(y_shape(s));
  const Tensor b = bias ? up(be, *bias, {s.out_channels}) : Tensor();
  be.conv3d(s, up(be, x, x_shape(s)), up(be, w, w_shape(s)), bias ? &b : nullptr, y);
  return be.download(y);
}

// dW and dbias from dy against the reference at fp32 tolerance; both start as NaN, as a pooled
// buffer may, so every element must be written.
std::vector<Check> backward_weights_checks(Backend& be, const ConvInputs& in) {
  Tensor dw = be.empty(w_shape(in.s)), db = be.empty({in.s.out_channels});
  be.fill(dw, std::numeric_limits<float>::quiet_NaN());
  be.fill(db, std::numeric_limits<float>::quiet_NaN());
  be.conv3d_backward_weights(in.s, up(be, in.x, x_shape(in.s)), up(be, in.dy, y_shape(in.s)), dw,
                             &db);
  DVec dw_ref, db_ref;
  backward_weights_ref(in.s, in.x, in.dy, dw_ref, db_ref);
  return checks({{"dw", be.download(dw), dw_ref, Precision::f32, 1e-4},
                 {"dbias", be.download(db), db_ref, Precision::f32, 1e-4}});
}

}  // namespace

void add_conv3d_cases(std::vector<OpCase>& cases) {
  // A reduction long enough that OpenCL splits the weight gradient's k dimension (conv3d.cpp:
  // slices of at least 512 rows, here with a remainder): 13^3 voxels per sample (small shapes:
  // one sample of 5 x 5 x 41 and one channel in, two slices and one row left). dW starts as NaN, as
  // a pooled buffer may: the first chunk overwrites it (CLBlast's GEMV once let 0 x NaN in).
  for (Layout3d layout : {Layout3d::ncdhw, Layout3d::ndhwc}) {
    Conv3dShape s = shape_of({layout, 3, 1, 1}, true);
    s.batch = shape(2, 1), s.d = s.h = shape(13, 5), s.w = shape(13, 41);
    s.in_channels = shape(s.in_channels, 1);
    const std::string name =
        std::string("reference_split_k_") + (layout == Layout3d::ncdhw ? "ncdhw" : "ndhwc");
    cases.push_back({Op::conv3d_backward_weights, name, {}, [=](Backend& be) {
                       return backward_weights_checks(be, ConvInputs(s, 1290));
                     }});
  }
  unsigned seed = 1300;
  for (const Config& c : kConfigs)
    for (bool with_bias : {true, false}) {
      const std::string suffix = config_name(c) + (with_bias ? "_bias" : "_no_bias");
      seed += 10;
      cases.push_back({Op::conv3d, "reference_" + suffix, {}, [=](Backend& be) {
                         const ConvInputs in(c, false, seed);
                         const Vec* b = with_bias ? &in.bias : nullptr;
                         return checks({{"y", forward(be, in.s, in.x, in.w, b),
                                         conv3d_ref(in.s, in.x, in.w, b), Precision::f32, 1e-4}});
                       }});
      cases.push_back(
          {Op::conv3d_backward_weights, "reference_" + suffix, {}, [=](Backend& be) {
             const ConvInputs in(c, false, seed + 5);
             Tensor dw = be.empty(w_shape(in.s)), db = be.empty({in.s.out_channels});
             be.conv3d_backward_weights(in.s, up(be, in.x, x_shape(in.s)),
                                        up(be, in.dy, y_shape(in.s)), dw,
                                        with_bias ? &db : nullptr);
             DVec dw_ref, db_ref;
             backward_weights_ref(in.s, in.x, in.dy, dw_ref, db_ref);
             std::vector<Check> out{{"dw", be.download(dw), dw_ref, Precision::f32, 1e-4}};
             if (with_bias) out.push_back({"dbias", be.download(db), db_ref, Precision::f32, 1e-4});
             return out;
           }});
      if (!with_bias) continue;
      cases.push_back(
          {Op::conv3d_backward_data, "reference_" + config_name(c), {}, [=](Backend& be) {
             const ConvInputs in(c, false, seed + 7);
             Tensor dx = be.empty(x_shape(in.s));
             be.conv3d_backward_data(in.s, up(be, in.dy, y_shape(in.s)),
                                     up(be, in.w, w_shape(in.s)), dx);
             return checks({{"dx", be.download(dx), backward_data_ref(in.s, in.dy, in.w),
                             Precision::f32, 1e-4}});
           }});
    }
  // Reduced-precision products (tf32 tensor cores where a backend has them): all three passes,
  // both layouts, against the fp64 reference at tf32's tolerance.
  for (const Config& c : {kConfigs[1], kConfigs[4]}) {
    seed += 10;
    cases.push_back(
        {Op::conv3d, "tf32_" + config_name(c), needs_precision(Precision::tf32), [=](Backend& be) {
           ConvInputs in(c, false, seed);
           in.s.precision = Precision::tf32;
           Tensor dx = be.empty(x_shape(in.s)), dw = be.empty(w_shape(in.s));
           be.conv3d_backward_data(in.s, up(be, in.dy, y_shape(in.s)), up(be, in.w, w_shape(in.s)),
                                   dx);
           be.conv3d_backward_weights(in.s, up(be, in.x, x_shape(in.s)),
                                      up(be, in.dy, y_shape(in.s)), dw, nullptr);
           DVec dw_ref, db_ref;
           backward_weights_ref(in.s, in.x, in.dy, dw_ref, db_ref);
           return checks(
               {{"y", forward(be, in.s, in.x, in.w, &in.bias),
                 conv3d_ref(in.s, in.x, in.w, &in.bias), Precision::tf32},
                {"dx", be.download(dx), backward_data_ref(in.s, in.dy, in.w), Precision::tf32},
                {"dw", be.download(dw), dw_ref, Precision::tf32}});
         }});
  }
  // bf16 weight gradients with channels in whole 16-byte chunks (multiples of 8), where NVIDIA
  // runs them on its bf16 kernel (conv3d_dw_bf16_nvidia.cl): stride 1 with two slices of the
  // split reduction (the second partial) and an output-channel tile of 16; stride 2 with a
  // partial tile of 32 output channels and of 128 (tap, channel) columns. The reference
  // multiplies the inputs rounded to bf16, as the kernel does (emulated on the host: the
  // portable backends have no bf16 convolution and skip); bf16 convolutions run wherever tf32
  // ones do (fronts_conv3d.cpp).
  struct Bf16Case {
    int stride;
    int64_t in, out, d, h, w;
  };
  for (const Bf16Case& b : {Bf16Case{1, 8, 16, 9, 8, 10}, Bf16Case{2, 16, 24, 9, 8, 10}}) {
    seed += 10;
    Conv3dShape s = shape_of({Layout3d::ndhwc, 3, b.stride, 1}, false);
    s.in_channels = b.in, s.out_channels = b.out, s.d = b.d, s.h = b.h, s.w = b.w;
    s.precision = Precision::bf16;
    cases.push_back({Op::conv3d_backward_weights, "bf16_ndhwc_k3_s" + std::to_string(b.stride),
                     needs_precision(Precision::tf32), [=](Backend& be) {
                       const ConvInputs in(s, seed);
                       Tensor dw = be.empty(w_shape(in.s)), db = be.empty({in.s.out_channels});
                       be.conv3d_backward_weights(in.s, up(be, in.x, x_shape(in.s)),
                                                  up(be, in.dy, y_shape(in.s)), dw, &db);
                       DVec dw_ref, db_ref, unused;
                       backward_weights_ref(in.s, bf16_rounded(in.x), bf16_rounded(in.dy), dw_ref,
                                            unused);
                       backward_weights_ref(in.s, in.x, in.dy, unused, db_ref);
                       return checks({{"dw", be.download(dw), dw_ref, Precision::bf16},
                                      {"dbias", be.download(db), db_ref, Precision::f32, 1e-4}});
                     }});
  }
  // Narrow convolutions (one channel in or out, channels-last, a reduced precision), which
  // OpenCL runs in fp32 on kernels/conv3d_narrow.cl (conv3d_narrow.cpp): DynUNet's first
  // convolution (1 -> 16, 3^3), its 1^3 projection of the image and its output head (16 -> 1,
  // 1^3), all three passes with bias (the weight gradient at 1^3 and 3^3 from one channel: other
  // 3^3 ones stay on the GEMM paths), the weight gradient over 1,716 rows in several slots of
  // its split reduction. 3^3 from one channel: into 16 four output rows an item
  // (conv3d_narrow_rows4_k3, as the 4 -> 1 data gradient from dy's one channel, flipped; 6 rows:
  // the second group's last two are past the edge), into 24 an output voxel an item
  // (conv3d_narrow_c1_k3).
  // fp32's tolerance: a GEMM at the named precision would miss it, so the cases fail should a call
  // leave the fp32 kernels. f16 runs on every backend with f16 (PoCL here), bf16 where tf32 runs
  // (NVIDIA); OpenCL only (other backends compute these at the named precision).
  struct NarrowCase {
    int kernel, padding;
    int64_t in, out;
  };
  for (const Precision p : {Precision::f16, Precision::bf16})
    for (const NarrowCase& nc :
         {NarrowCase{3, 1, 1, 16}, NarrowCase{1, 0, 1, 16}, NarrowCase{1, 0, 16, 1},
          NarrowCase{3, 1, 4, 1}, NarrowCase{3, 1, 1, 24}}) {
      seed += 10;
      Conv3dShape s = shape_of({Layout3d::ndhwc, nc.kernel, 1, nc.padding}, false);
      s.in_channels = nc.in, s.out_channels = nc.out;
      s.batch = 2, s.d = 11, s.h = 6, s.w = 13;
      s.precision = p;
      const std::string name = std::string("narrow_") + (p == Precision::f16 ? "f16" : "bf16") +
                               "_k" + std::to_string(nc.kernel) + "_" + std::to_string(nc.in) +
                               "to" + std::to_string(nc.out);
      const auto precision =
          needs_precision(p == Precision::f16 ? Precision::f16 : Precision::tf32);
      const std::function<std::string(Backend&)> needs = [precision](Backend& be) -> std::string {
        if (be.name() != "opencl") return "narrow convolutions: OpenCL's fp32 kernels";
        return precision(be);
      };
      cases.push_back({Op::conv3d, name, needs, [=](Backend& be) {
                         const ConvInputs in(s, seed);
                         return checks(
                             {{"y", forward(be, in.s, in.x, in.w, &in.bias),
                               conv3d_ref(in.s, in.x, in.w, &in.bias), Precision::f32, 1e-4}});
                       }});
      cases.push_back({Op::conv3d_backward_data, name, needs, [=](Backend& be) {
                         const ConvInputs in(s, seed + 3);
                         Tensor dx = be.empty(x_shape(in.s));
                         be.fill(dx, std::numeric_limits<float>::quiet_NaN());
                         be.conv3d_backward_data(in.s, up(be, in.dy, y_shape(in.s)),
                                                 up(be, in.w, w_shape(in.s)), dx);
                         return checks(
                             {{"dx", be.download(dx), backward_data_ref(in.s, in.dy, in.w),
                               Precision::f32, 1e-4}});
                       }});
      // 3^3 weight gradients stay on the GEMM paths, but from one input channel into at most 16
      // (conv3d_narrow_dw_k3_planes by default, =direct conv3d_narrow_dw_k3: 132 row segments, 16
      // a slot)
      if (nc.kernel != 1 && !(nc.in == 1 && nc.out <= 16)) continue;
      cases.push_back({Op::conv3d_backward_weights, name, needs, [=](Backend& be) {
                         return backward_weights_checks(be, ConvInputs(s, seed + 6));
                       }});
    }
#ifdef STAGEBENCH_HAVE_OPENCL
  // conv3d_narrow_dw_k3_planes (STAGEBENCH_CONV_NARROW=planes, the default), on for this case
  // whatever the environment says: the 1 -> 16 3^3 weight gradient against the reference at
  // fp32's tolerance, its launch counted, and dW and dbias the same bits as conv3d_narrow_dw_k3's
  // (=direct; each sum the same products in the same order), which this case launches too, so
  // that both kernels stay covered; 132 row segments over 9 slots, the last one partial.
  {
    seed += 10;
    Conv3dShape s = shape_of({Layout3d::ndhwc, 3, 1, 1}, false);
    s.in_channels = 1, s.out_channels = 16;
    s.batch = 2, s.d = 11, s.h = 6, s.w = 13;
    s.precision = Precision::f16;
    const auto precision = needs_precision(Precision::f16);
    const std::function<std::string(Backend&)> needs = [precision](Backend& be) -> std::string {
      if (dynamic_cast<OpenCLBackend*>(&be) == nullptr) return "conv3d_narrow.cl is OpenCL's";
      return precision(be);
    };
    cases.push_back(
        {Op::conv3d_backward_weights, "narrow_f16_k3_1to16_planes", needs, [=](Backend& be) {
           auto& cl = dynamic_cast<OpenCLBackend&>(be);
           struct Restore {
             OpenCLBackend& b;
             bool was;
             ~Restore() { b.use_conv_narrow_dw_planes(was); }
           } const restore{cl, cl.conv_narrow_dw_planes()};
           const ConvInputs in(s, seed);
           auto run = [&](bool planes, Vec& dw_out, Vec& db_out) {
             cl.use_conv_narrow_dw_planes(planes);
             Tensor dw = be.empty(w_shape(in.s)), db = be.empty({in.s.out_channels});
             be.fill(dw, std::numeric_limits<float>::quiet_NaN());
             be.fill(db, std::numeric_limits<float>::quiet_NaN());
             be.conv3d_backward_weights(in.s, up(be, in.x, x_shape(in.s)),
                                        up(be, in.dy, y_shape(in.s)), dw, &db);
             dw_out = be.download(dw), db_out = be.download(db);
           };
           auto planes_launches = [&] {
             be.synchronize();
             cl.kernel_log()->drain();
             const auto& k = cl.kernel_log()->kernels();
             const auto it = k.find("conv3d_narrow_dw_k3_planes");
             return it == k.end() ? uint64_t{0} : it->second.launches;
           };
           Vec dw_old, db_old, dw_new, db_new;
           run(false, dw_old, db_old);
           const uint64_t before = planes_launches();
           run(true, dw_new, db_new);
           const uint64_t ran = planes_launches() - before;
           DVec dw_ref, db_ref;
           backward_weights_ref(in.s, in.x, in.dy, dw_ref, db_ref);
           std::vector<Check> out =
               checks({{"dw", dw_new, dw_ref, Precision::f32, 1e-4},
                       {"dbias", db_new, db_ref, Precision::f32, 1e-4},
                       // 1e-300 x (1 + |want|): nothing but the same value passes
                       {"dw against conv3d_narrow_dw_k3", dw_new,
                        DVec(dw_old.begin(), dw_old.end()), Precision::f32, 1e-300},
                       {"dbias against conv3d_narrow_dw_k3", db_new,
                        DVec(db_old.begin(), db_old.end()), Precision::f32, 1e-300}});
           if (ran != 1)
             out.push_back(
                 {"conv3d_narrow_dw_k3_planes launches", {static_cast<float>(ran)}, {1.0}});
           return out;
         }});
  }
#endif
  // The stride-2 data gradient with dy's channels in several groups of four (24: six), where
  // NVIDIA spreads dy four channels an item (conv3d_dy_dilate4) before its bf16 implicit GEMM;
  // odd and unequal sizes, so the spread grid's last planes hold no dy. Reference over the
  // bf16-rounded dy and weight, as the kernel multiplies them.
  {
    seed += 10;
    Conv3dShape s = shape_of({Layout3d::ndhwc, 3, 2, 1}, false);
    s.in_channels = 8, s.out_channels = 24, s.d = 9, s.h = 8, s.w = 11;
    s.precision = Precision::bf16;
    cases.push_back({Op::conv3d_backward_data, "bf16_ndhwc_k3_s2_co24",
                     needs_precision(Precision::tf32), [=](Backend& be) {
                       const ConvInputs in(s, seed);
                       Tensor dx = be.empty(x_shape(in.s));
                       be.fill(dx, std::numeric_limits<float>::quiet_NaN());
                       be.conv3d_backward_data(in.s, up(be, in.dy, y_shape(in.s)),
                                               up(be, in.w, w_shape(in.s)), dx);
                       return checks(
                           {{"dx", be.download(dx),
                             backward_data_ref(in.s, bf16_rounded(in.dy), bf16_rounded(in.w)),
                             Precision::bf16}});
                     }});
  }
  // The cpu backend's bf16 convolutions (oneDNN): the three passes, both layouts, strides 1
  // and 2, a bias; 16 channels in and 32 out (whole blocks for oneDNN's bf16 jit kernels), 8 and
  // 8 (DynUNet tiny's first level), 8 into 1 (its output head).
  // Each output against the fp64 reference over the fp32 inputs at bf16's tolerance, and
  // against the one over the bf16-rounded inputs at fp32's: an fp32 product (a silent fallback)
  // misses the second by ~1e-2 per element. dbias sums the bf16 dy (oneDNN's bf16 kernels
  // reduce the bf16 operand they read, as PyTorch's autocast convolution does). Where a channel
  // count is not a multiple of 8 (one channel in: DynUNet's first convolution; one out), an ISA
  // may have only oneDNN's reference kernel and the op then runs in fp32: the first check alone.
  for (const Config& c : {kConfigs[0], kConfigs[1], kConfigs[4], kConfigs[5]}) {
    for (const auto& [in_channels, out_channels] :
         {std::pair<int64_t, int64_t>{16, 32}, {1, 32}, {8, 8}, {8, 1}}) {
      if (in_channels == 1 && c.stride != 1) continue;
      seed += 10;
      Conv3dShape s = shape_of(c, false);
      s.batch = 1, s.in_channels = in_channels, s.out_channels = out_channels;
      s.precision = Precision::bf16;
      const bool blocked = in_channels % 8 == 0 && out_channels % 8 == 0;
      cases.push_back(
          {Op::conv3d,
           "cpu_bf16_" + config_name(c) + "_ci" + std::to_string(in_channels) + "_co" +
               std::to_string(out_channels),
           needs_cpu_bf16_convolutions(), [=](Backend& be) {
             const ConvInputs in(s, seed);
             Tensor dx = be.empty(x_shape(in.s)), dw = be.empty(w_shape(in.s)),
                    db = be.empty({in.s.out_channels});
             be.fill(dx, std::numeric_limits<float>::quiet_NaN());
             be.fill(dw, std::numeric_limits<float>::quiet_NaN());
             const Tensor dy = up(be, in.dy, y_shape(in.s)), w = up(be, in.w, w_shape(in.s));
             be.conv3d_backward_data(in.s, dy, w, dx);
             be.conv3d_backward_weights(in.s, up(be, in.x, x_shape(in.s)), dy, dw, &db);
             const Vec y = forward(be, in.s, in.x, in.w, &in.bias);
             DVec dw_ref, db_ref, dw_bf16, db_bf16;
             backward_weights_ref(in.s, in.x, in.dy, dw_ref, db_ref);
             const Vec xr = bf16_rounded(in.x), wr = bf16_rounded(in.w), dyr = bf16_rounded(in.dy);
             backward_weights_ref(in.s, xr, dyr, dw_bf16, db_bf16);
             const Vec got_dx = be.download(dx), got_dw = be.download(dw), got_db = be.download(db);
             std::vector<Check> out{
                 {"y", y, conv3d_ref(in.s, in.x, in.w, &in.bias), Precision::bf16},
                 {"dx", got_dx, backward_data_ref(in.s, in.dy, in.w), Precision::bf16},
                 {"dw", got_dw, dw_ref, Precision::bf16},
                 {"dbias", got_db, db_ref, Precision::bf16}};
             if (blocked) {
               out.push_back({"y of bf16 products", y, conv3d_ref(in.s, xr, wr, &in.bias),
                              Precision::f32, 1e-4});
               out.push_back({"dx of bf16 products", got_dx, backward_data_ref(in.s, dyr, wr),
                              Precision::f32, 1e-4});
               out.push_back({"dw of bf16 products", got_dw, dw_bf16, Precision::f32, 1e-4});
               out.push_back({"dbias of bf16 dy", got_db, db_bf16, Precision::f32, 1e-4});
             }
             return out;
           }});
    }
  }
  for (const Config& c : kGradientConfigs) {
    seed += 10;
    cases.push_back({Op::conv3d_backward_data, "gradient_" + config_name(c), {}, [=](Backend& be) {
                       const ConvInputs in(c, true, seed);
                       Tensor dx = be.empty(x_shape(in.s));
                       be.conv3d_backward_data(in.s, up(be, in.dy, y_shape(in.s)),
                                               up(be, in.w, w_shape(in.s)), dx);
                       const DVec numeric = numeric_gradient(in.x, [&](const Vec& x) {
                         return dot(in.dy, forward(be, in.s, x, in.w, &in.bias));
                       });
                       return checks({gradient_matches("dx", be.download(dx), numeric)});
                     }});
    cases.push_back(
        {Op::conv3d_backward_weights, "gradient_" + config_name(c), {}, [=](Backend& be) {
           const ConvInputs in(c, true, seed + 5);
           Tensor dw = be.empty(w_shape(in.s)), db = be.empty({in.s.out_channels});
           be.conv3d_backward_weights(in.s, up(be, in.x, x_shape(in.s)),
                                      up(be, in.dy, y_shape(in.s)), dw, &db);
           const DVec dw_numeric = numeric_gradient(in.w, [&](const Vec& w) {
             return dot(in.dy, forward(be, in.s, in.x, w, &in.bias));
           });
           const DVec db_numeric = numeric_gradient(in.bias, [&](const Vec& b) {
             return dot(in.dy, forward(be, in.s, in.x, in.w, &b));
           });
           return checks({gradient_matches("dw", be.download(dw), dw_numeric),
                          gradient_matches("dbias", be.download(db), db_numeric)});
         }});
  }
}

}  // namespace sb::testing
