// conv3d and its two backward ops on the CPU: oneDNN's convolution_forward,
// convolution_backward_data and convolution_backward_weights in fp32, on the activations' own
// layout (format tag ncdhw or ndhwc) and PyTorch's weight layout (oidhw), so no reorders run.
// One primitive per (pass, shape, bias), built on first use and cached for the backend's life.
//
// Without oneDNN in the build (STAGEBENCH_DNNL=OFF) the same ops run as direct loops (OpenMP
// over independent outputs, fp32 accumulation in a fixed order): the forward sums each output
// voxel's window; backward-data gathers, for each input voxel, the output voxels whose window
// covers it (no scatter); backward-weights sums each weight's products over n and the output
// voxels, and dbias each channel's dy. They are slow (no blocking) but correct, and compiled in
// every build so they cannot rot unnoticed.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/parallel.h"

#ifdef STAGEBENCH_HAVE_DNNL
#include <dnnl.hpp>
#endif

namespace sb::cpu {

namespace {

// The cpu backend has no reduced-precision convolution: a call asking for one is refused
// rather than computed in fp32 under another name.
void expect_f32_products(const Conv3dShape& s, const char* op) {
  if (s.precision != Precision::f32)
    throw std::invalid_argument(std::string(op) + ": the cpu backend computes convolutions in " +
                                "f32 only (precision " + precision_name(s.precision) + ")");
}

// Strides of a [N, C, D, H, W] volume stored in `layout`: {n, c, z, y, x}.
std::array<int64_t, 5> volume_strides(Layout3d layout, int64_t c, int64_t d, int64_t h, int64_t w) {
  if (layout == Layout3d::ncdhw) return {c * d * h * w, d * h * w, h * w, w, 1};
  return {d * h * w * c, 1, h * w * c, w * c, c};
}

struct Dims {
  int64_t od, oh, ow;
  std::array<int64_t, 5> xs, ys;  // the input's and the output's strides
};

Dims dims_of(const Conv3dShape& s) {
  Dims g{};
  g.od = s.out_size(s.d, false);
  g.oh = s.out_size(s.h, false);
  g.ow = s.out_size(s.w, false);
  g.xs = volume_strides(s.layout, s.in_channels, s.d, s.h, s.w);
  g.ys = volume_strides(s.layout, s.out_channels, g.od, g.oh, g.ow);
  return g;
}

[[maybe_unused]] void conv3d_loops(const Conv3dShape& s, const float* x, const float* w,
                                   const float* bias, float* y) {
  const Dims g = dims_of(s);
  const int64_t k = s.kernel, ci = s.in_channels, co = s.out_channels;
  const int64_t voxels = g.od * g.oh * g.ow;
  parallel_for(s.batch * co * voxels, ci * k * k * k, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t n = i / (co * voxels), o = i / voxels % co, v = i % voxels;
      const int64_t oz = v / (g.oh * g.ow), oy = v / g.ow % g.oh, ox = v % g.ow;
      float acc = bias ? bias[o] : 0.0f;
      for (int64_t c = 0; c < ci; ++c)
        for (int64_t kz = 0; kz < k; ++kz) {
          const int64_t z = oz * s.stride - s.padding + kz;
          if (z < 0 || z >= s.d) continue;
          for (int64_t ky = 0; ky < k; ++ky) {
            const int64_t yy = oy * s.stride - s.padding + ky;
            if (yy < 0 || yy >= s.h) continue;
            for (int64_t kx = 0; kx < k; ++kx) {
              const int64_t xx = ox * s.stride - s.padding + kx;
              if (xx < 0 || xx >= s.w) continue;
              acc += w[(((o * ci + c) * k + kz) * k + ky) * k + kx] *
                     x[n * g.xs[0] + c * g.xs[1] + z * g.xs[2] + yy * g.xs[3] + xx * g.xs[4]];
            }
          }
        }
      y[n * g.ys[0] + o * g.ys[1] + oz * g.ys[2] + oy * g.ys[3] + ox * g.ys[4]] = acc;
    }
  });
}

// The output positions o (with kernel tap t) whose window covers input position i on one axis:
// i = o stride - padding + t.
template <class Body>
void taps_covering(int64_t i, const Conv3dShape& s, int64_t out, Body&& body) {
  for (int64_t t = 0; t < s.kernel; ++t) {
    const int64_t q = i + s.padding - t;
    if (q < 0 || q % s.stride != 0 || q / s.stride >= out) continue;
    body(q / s.stride, t);
  }
}

[[maybe_unused]] void conv3d_backward_data_loops(const Conv3dShape& s, const float* dy,
                                                 const float* w, float* dx) {
  const Dims g = dims_of(s);
  const int64_t k = s.kernel, ci = s.in_channels, co = s.out_channels;
  const int64_t voxels = s.d * s.h * s.w;
  parallel_for(s.batch * ci * voxels, co * k * k * k, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t n = i / (ci * voxels), c = i / voxels % ci, v = i % voxels;
      const int64_t z = v / (s.h * s.w), yy = v / s.w % s.h, xx = v % s.w;
      float acc = 0.0f;
      for (int64_t o = 0; o < co; ++o)
        taps_covering(z, s, g.od, [&](int64_t oz, int64_t kz) {
          taps_covering(yy, s, g.oh, [&](int64_t oy, int64_t ky) {
            taps_covering(xx, s, g.ow, [&](int64_t ox, int64_t kx) {
              acc += w[(((o * ci + c) * k + kz) * k + ky) * k + kx] *
                     dy[n * g.ys[0] + o * g.ys[1] + oz * g.ys[2] + oy * g.ys[3] + ox * g.ys[4]];
            });
          });
        });
      dx[n * g.xs[0] + c * g.xs[1] + z * g.xs[2] + yy * g.xs[3] + xx * g.xs[4]] = acc;
    }
  });
}

[[maybe_unused]] void conv3d_backward_weights_loops(const Conv3dShape& s, const float* x,
                                                    const float* dy, float* dw, float* dbias) {
  const Dims g = dims_of(s);
  const int64_t k = s.kernel, ci = s.in_channels, co = s.out_channels;
  const int64_t taps = k * k * k, voxels = g.od * g.oh * g.ow;
  parallel_for(co * ci * taps, s.batch * voxels, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t o = i / (ci * taps), c = i / taps % ci, t = i % taps;
      const int64_t kz = t / (k * k), ky = t / k % k, kx = t % k;
      float acc = 0.0f;
      for (int64_t n = 0; n < s.batch; ++n)
        for (int64_t oz = 0; oz < g.od; ++oz) {
          const int64_t z = oz * s.stride - s.padding + kz;
          if (z < 0 || z >= s.d) continue;
          for (int64_t oy = 0; oy < g.oh; ++oy) {
            const int64_t yy = oy * s.stride - s.padding + ky;
            if (yy < 0 || yy >= s.h) continue;
            for (int64_t ox = 0; ox < g.ow; ++ox) {
              const int64_t xx = ox * s.stride - s.padding + kx;
              if (xx < 0 || xx >= s.w) continue;
              acc += dy[n * g.ys[0] + o * g.ys[1] + oz * g.ys[2] + oy * g.ys[3] + ox * g.ys[4]] *
                     x[n * g.xs[0] + c * g.xs[1] + z * g.xs[2] + yy * g.xs[3] + xx * g.xs[4]];
            }
          }
        }
      dw[i] = acc;
    }
  });
  if (dbias == nullptr) return;
  for (int64_t o = 0; o < co; ++o) {
    float acc = 0.0f;
    for (int64_t n = 0; n < s.batch; ++n)
      for (int64_t v = 0; v < voxels; ++v) {
        const int64_t oz = v / (g.oh * g.ow), oy = v / g.ow % g.oh, ox = v % g.ow;
        acc += dy[n * g.ys[0] + o * g.ys[1] + oz * g.ys[2] + oy * g.ys[3] + ox * g.ys[4]];
      }
    dbias[o] = acc;
  }
}

}  // namespace

#ifdef STAGEBENCH_HAVE_DNNL

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using DT = memory::data_type;

enum class Pass : int { forward, backward_data, backward_weights };

// Everything that makes a different primitive.
using Key = std::tuple<Pass, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int, int, int,
                       Layout3d, bool>;

Key key_of(Pass pass, const Conv3dShape& s, bool bias) {
  return {pass, s.batch,  s.in_channels, s.out_channels, s.d,      s.h,
          s.w,  s.kernel, s.stride,      s.padding,      s.layout, bias};
}

memory::desc volume_desc(const Conv3dShape& s, int64_t c, int64_t d, int64_t h, int64_t w) {
  return memory::desc({s.batch, c, d, h, w}, DT::f32,
                      s.layout == Layout3d::ncdhw ? Tag::ncdhw : Tag::ndhwc);
}

struct Descs {
  memory::desc src, weights, bias, dst;
  memory::dims strides, padding;
};

Descs descs_of(const Conv3dShape& s, bool bias) {
  const int64_t k = s.kernel;
  Descs d;
  d.src = volume_desc(s, s.in_channels, s.d, s.h, s.w);
  d.dst = volume_desc(s, s.out_channels, s.out_size(s.d, false), s.out_size(s.h, false),
                      s.out_size(s.w, false));
  // ndhwc: oneDNN's jit kernels for channels-last want weights in a layout of their own (with
  // plain oidhw weights it falls back to its reference kernels, ~30x slower here); `any` lets
  // the primitive choose, and the weights are reordered per call (they change every step).
  d.weights = memory::desc({s.out_channels, s.in_channels, k, k, k}, DT::f32,
                           s.layout == Layout3d::ndhwc ? Tag::any : Tag::oidhw);
  if (bias) d.bias = memory::desc({s.out_channels}, DT::f32, Tag::a);
  d.strides = {s.stride, s.stride, s.stride};
  d.padding = {s.padding, s.padding, s.padding};
  return d;
}

// The forward primitive descriptor (also the backward passes' hint).
dnnl::convolution_forward::primitive_desc forward_pd(const Descs& d, bool bias,
                                                     const dnnl::engine& engine) {
  const auto prop = dnnl::prop_kind::forward_training;
  const auto algo = dnnl::algorithm::convolution_direct;
  if (bias)
    return {{prop, algo, d.src, d.weights, d.bias, d.dst, d.strides, d.padding, d.padding}, engine};
  return {{prop, algo, d.src, d.weights, d.dst, d.strides, d.padding, d.padding}, engine};
}

}  // namespace

// A primitive and the weights layout it chose (the plain oidhw unless `any` was asked).
struct ConvPrimitive {
  dnnl::primitive p;
  memory::desc weights;
};

memory::desc plain_weights(const Conv3dShape& s) {
  const int64_t k = s.kernel;
  return memory::desc({s.out_channels, s.in_channels, k, k, k}, DT::f32, Tag::oidhw);
}

struct CpuBackend::Conv3dPrimitives {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  std::map<Key, ConvPrimitive> cache;

  ConvPrimitive& get(Pass pass, const Conv3dShape& s, bool bias) {
    const Key key = key_of(pass, s, bias);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    const Descs d = descs_of(s, bias);
    const auto algo = dnnl::algorithm::convolution_direct;
    const auto hint = forward_pd(d, bias, engine);
    ConvPrimitive p;
    switch (pass) {
      case Pass::forward:
        p = {dnnl::convolution_forward(hint), hint.weights_desc()};
        break;
      case Pass::backward_data: {
        const dnnl::convolution_backward_data::primitive_desc pd(
            {algo, d.src, d.weights, d.dst, d.strides, d.padding, d.padding}, engine, hint);
        p = {dnnl::convolution_backward_data(pd), pd.weights_desc()};
        break;
      }
      case Pass::backward_weights: {
        const auto pd =
            bias ? dnnl::convolution_backward_weights::primitive_desc(
                       {algo, d.src, d.weights, d.bias, d.dst, d.strides, d.padding, d.padding},
                       engine, hint)
                 : dnnl::convolution_backward_weights::primitive_desc(
                       {algo, d.src, d.weights, d.dst, d.strides, d.padding, d.padding}, engine,
                       hint);
        p = {dnnl::convolution_backward_weights(pd), pd.diff_weights_desc()};
        break;
      }
    }
    return cache.emplace(key, std::move(p)).first->second;
  }

  // The weights in the primitive's layout: the tensor itself when that is oidhw, else a reorder.
  dnnl::memory weights_in(const ConvPrimitive& p, const Conv3dShape& s, const Tensor& w,
                          const char* what) {
    dnnl::memory plain = wrap(plain_weights(s), w, what);
    if (p.weights == plain_weights(s)) return plain;
    dnnl::memory out(p.weights, engine);
    dnnl::reorder(plain, out).execute(stream, plain, out);
    return out;
  }

  dnnl::memory wrap(const dnnl::memory::desc& desc, const Tensor& t, const char* what) const {
    return dnnl::memory(desc, engine, f32_data(t, what));
  }
};

CpuBackend::Conv3dPrimitives& CpuBackend::conv3d_primitives() {
  if (!conv3d_) conv3d_ = std::make_shared<Conv3dPrimitives>();
  return *conv3d_;
}

void CpuBackend::do_conv3d(const Conv3dShape& s, const Tensor& x, const Tensor& w,
                           const Tensor* bias, Tensor& y) {
  expect_f32_products(s, "conv3d");
  Conv3dPrimitives& c = conv3d_primitives();
  ConvPrimitive& p = c.get(Pass::forward, s, bias != nullptr);
  const Descs d = descs_of(s, bias != nullptr);
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, c.wrap(d.src, x, "conv3d input")},
      {DNNL_ARG_WEIGHTS, c.weights_in(p, s, w, "conv3d weight")},
      {DNNL_ARG_DST, c.wrap(d.dst, y, "conv3d output")}};
  if (bias) args.emplace(DNNL_ARG_BIAS, c.wrap(d.bias, *bias, "conv3d bias"));
  p.p.execute(c.stream, args);
  c.stream.wait();
}

void CpuBackend::do_conv3d_backward_data(const Conv3dShape& s, const Tensor& dy, const Tensor& w,
                                         Tensor& dx) {
  expect_f32_products(s, "conv3d_backward_data");
  Conv3dPrimitives& c = conv3d_primitives();
  ConvPrimitive& p = c.get(Pass::backward_data, s, false);
  const Descs d = descs_of(s, false);
  p.p.execute(c.stream, {{DNNL_ARG_DIFF_DST, c.wrap(d.dst, dy, "conv3d_backward_data dy")},
                         {DNNL_ARG_WEIGHTS, c.weights_in(p, s, w, "conv3d_backward_data weight")},
                         {DNNL_ARG_DIFF_SRC, c.wrap(d.src, dx, "conv3d_backward_data dx")}});
  c.stream.wait();
}

void CpuBackend::do_conv3d_backward_weights(const Conv3dShape& s, const Tensor& x, const Tensor& dy,
                                            Tensor& dw, Tensor* dbias) {
  expect_f32_products(s, "conv3d_backward_weights");
  Conv3dPrimitives& c = conv3d_primitives();
  ConvPrimitive& p = c.get(Pass::backward_weights, s, dbias != nullptr);
  const Descs d = descs_of(s, dbias != nullptr);
  dnnl::memory plain = c.wrap(plain_weights(s), dw, "conv3d_backward_weights dw");
  const bool reorder = !(p.weights == plain_weights(s));
  dnnl::memory diff = reorder ? dnnl::memory(p.weights, c.engine) : plain;
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, c.wrap(d.src, x, "conv3d_backward_weights input")},
      {DNNL_ARG_DIFF_DST, c.wrap(d.dst, dy, "conv3d_backward_weights dy")},
      {DNNL_ARG_DIFF_WEIGHTS, diff}};
  if (dbias)
    args.emplace(DNNL_ARG_DIFF_BIAS, c.wrap(d.bias, *dbias, "conv3d_backward_weights dbias"));
  p.p.execute(c.stream, args);
  if (reorder) dnnl::reorder(diff, plain).execute(c.stream, diff, plain);
  c.stream.wait();
}

#else  // the loops

void CpuBackend::do_conv3d(const Conv3dShape& s, const Tensor& x, const Tensor& w,
                           const Tensor* bias, Tensor& y) {
  expect_f32_products(s, "conv3d");
  conv3d_loops(s, f32_data(x, "conv3d input"), f32_data(w, "conv3d weight"),
               bias ? f32_data(*bias, "conv3d bias") : nullptr, f32_data(y, "conv3d output"));
}

void CpuBackend::do_conv3d_backward_data(const Conv3dShape& s, const Tensor& dy, const Tensor& w,
                                         Tensor& dx) {
  expect_f32_products(s, "conv3d_backward_data");
  conv3d_backward_data_loops(s, f32_data(dy, "conv3d_backward_data dy"),
                             f32_data(w, "conv3d_backward_data weight"),
                             f32_data(dx, "conv3d_backward_data dx"));
}

void CpuBackend::do_conv3d_backward_weights(const Conv3dShape& s, const Tensor& x, const Tensor& dy,
                                            Tensor& dw, Tensor* dbias) {
  expect_f32_products(s, "conv3d_backward_weights");
  conv3d_backward_weights_loops(
      s, f32_data(x, "conv3d_backward_weights input"), f32_data(dy, "conv3d_backward_weights dy"),
      f32_data(dw, "conv3d_backward_weights dw"),
      dbias ? f32_data(*dbias, "conv3d_backward_weights dbias") : nullptr);
}

#endif

}  // namespace sb::cpu
