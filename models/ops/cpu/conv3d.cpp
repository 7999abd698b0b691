// conv3d and its two backward ops on the CPU: oneDNN's convolution_forward,
// convolution_backward_data and convolution_backward_weights in fp32, each created with the
// layouts its jit kernels choose, the tensors reordered in and out per call (descs_of says
// which). One primitive per (pass, shape, bias, precision), with its reorders, built on first use
// and cached for the backend's life; the reordered copies live in three buffers the backend holds.
//
// At Precision::bf16 (DynUNet's bf16-mixed stage, PyTorch's autocast) the products read bf16
// operands and accumulate in fp32 (oneDNN's avx512_core_bf16 jit kernels, AMX where the host has
// it): the tensors stay fp32 (the master weights, the activations the fp32 norms read), the
// reorder that puts an operand in the primitive's layout writes it as bf16 on the way (for ncdhw
// a pass that fp32 makes too; for ndhwc a conversion pass that fp32 does not need), and every
// output is written in fp32 (y, dx, and dW for the fp32 master weights), so no pass converts
// back. A shape whose bf16 primitive would be one of oneDNN's reference kernels (channels
// too few for its jit kernels' blocks) runs in fp32 instead: Precision is what the products
// may be computed in, and a reference kernel is slower than fp32's jit one.
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
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/op_times.h"
#include "models/ops/cpu/parallel.h"
#include "models/ops/cpu/scratch.h"
#include "models/ops/knobs.h"

#ifdef STAGEBENCH_HAVE_DNNL
#include <dnnl.hpp>

#include "models/ops/cpu/dnnl_reordered.h"
#endif

namespace sb::cpu {

namespace {

// Without oneDNN the loops compute in fp32 only; with it, fp32 and bf16. Any other precision is
// refused rather than computed in fp32 under another name.
void expect_products(const Conv3dShape& s, const char* op) {
#ifdef STAGEBENCH_HAVE_DNNL
  if (s.precision == Precision::f32 || s.precision == Precision::bf16) return;
  const char* have = "f32 and bf16 only";
#else
  if (s.precision == Precision::f32) return;
  const char* have = "f32 only (bf16 needs oneDNN)";
#endif
  throw std::invalid_argument(std::string(op) + ": the cpu backend computes convolutions in " +
                              have + " (precision " + precision_name(s.precision) + ")");
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
                       Layout3d, bool, Precision>;

Key key_of(Pass pass, const Conv3dShape& s, bool bias) {
  return {pass,     s.batch,  s.in_channels, s.out_channels, s.d,  s.h,        s.w,
          s.kernel, s.stride, s.padding,     s.layout,       bias, s.precision};
}

memory::desc volume_desc(const Conv3dShape& s, int64_t c, int64_t d, int64_t h, int64_t w, Tag tag,
                         DT type = DT::f32) {
  return memory::desc({s.batch, c, d, h, w}, type, tag);
}

// The data types a primitive's source, weights and destination (or their gradients) are made
// with: bf16 for what the products read, fp32 for what they write (the output, dx, and dW, which
// the fp32 master weights take as it is).
struct Types {
  DT src, weights, dst;
};
Types types_of(Pass pass, Precision p) {
  if (p != Precision::bf16) return {DT::f32, DT::f32, DT::f32};
  switch (pass) {
    case Pass::forward:
      return {DT::bf16, DT::bf16, DT::f32};
    case Pass::backward_data:
      return {DT::f32, DT::bf16, DT::bf16};
    case Pass::backward_weights:
      return {DT::bf16, DT::f32, DT::bf16};
  }
  return {DT::f32, DT::f32, DT::f32};
}

// The tensors' own layouts (what the op layer holds) and the layouts a primitive is created
// with. oneDNN's jit convolution kernels want their own layouts: with plain ncdhw it falls back
// to im2col + GEMM (~1.4 GFLOP/s on a 16-channel 32^3 volume here), and with plain oidhw
// weights next to ndhwc volumes to its reference kernels (~30x slower still). So the primitive
// is created with `any` where that helps (every operand for ncdhw; the weights for ndhwc, which
// the kernels take natively), and the operands are reordered in and out per call, as
// PyTorch's CPU path does through oneDNN for a contiguous (ncdhw) tensor. Channels-last saves
// the volumes' reorders, which is what that stage measures.
struct Descs {
  memory::desc src, weights, bias, dst;  // plain: the tensors' layouts
  memory::desc src_any, weights_any, dst_any;
  memory::dims strides, padding;
};

Descs descs_of(const Conv3dShape& s, bool bias, Types t) {
  const int64_t k = s.kernel;
  const Tag plain = s.layout == Layout3d::ncdhw ? Tag::ncdhw : Tag::ndhwc;
  const Tag volumes = s.layout == Layout3d::ncdhw ? Tag::any : Tag::ndhwc;
  const int64_t od = s.out_size(s.d, false), oh = s.out_size(s.h, false),
                ow = s.out_size(s.w, false);
  Descs d;
  d.src = volume_desc(s, s.in_channels, s.d, s.h, s.w, plain);
  d.dst = volume_desc(s, s.out_channels, od, oh, ow, plain);
  d.src_any = volume_desc(s, s.in_channels, s.d, s.h, s.w, volumes, t.src);
  d.dst_any = volume_desc(s, s.out_channels, od, oh, ow, volumes, t.dst);
  d.weights = memory::desc({s.out_channels, s.in_channels, k, k, k}, DT::f32, Tag::oidhw);
  d.weights_any = memory::desc({s.out_channels, s.in_channels, k, k, k}, t.weights, Tag::any);
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
    return {
        {prop, algo, d.src_any, d.weights_any, d.bias, d.dst_any, d.strides, d.padding, d.padding},
        engine};
  return {{prop, algo, d.src_any, d.weights_any, d.dst_any, d.strides, d.padding, d.padding},
          engine};
}

// A primitive and its three tensors (source, weights, destination, or their gradients), each
// with its reorders made once (each call used to make its reorders and allocate its copies anew).
struct ConvPrimitive {
  dnnl::primitive p;
  ReorderedOperand src, weights, dst;
  memory::desc bias;                     // plain, when the primitive has one
  Precision precision = Precision::f32;  // what it computes in (bf16 asked may run in f32)
};

enum Role { kSrc, kWeights, kDst };

}  // namespace

struct CpuBackend::Conv3dPrimitives {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  std::map<Key, ConvPrimitive> cache;
  // Backend::hold_read_only's promise, for the data gradient dy that a convolution's two backward
  // passes both read (network.cpp holds it around them): its copy in the primitive's layout (at
  // bf16, the conversion) made by the first pass and read by the second, while the desc is the
  // same, instead of a reorder each. Holds counted per base pointer; the copy forgotten at the
  // last release. STAGEBENCH_CPU_CONV_HELD_COPY=off reorders at every call (for A/B runs).
  std::map<const float*, int> holds;
  const float* held_of = nullptr;  // whose copy held_copy holds, null when none
  memory::desc held_desc;
  bool reuse_held = read_on_off_knob("STAGEBENCH_CPU_CONV_HELD_COPY");
  // Where an operand's copy in the chosen layout lives during its call: one buffer per role,
  // grown to the largest copy any shape needs (ops run one at a time; a call uses each role
  // once). A fresh multi-megabyte buffer per call was fresh pages to fault in, every call.
  Scratch src_copy, weights_copy, dst_copy;

  Scratch held_copy;

  explicit Conv3dPrimitives(const std::shared_ptr<AllocationTracker>& host)
      : src_copy(host), weights_copy(host), dst_copy(host), held_copy(host) {}

  void hold(const float* data) { ++holds[data]; }
  void release(const float* data) {
    auto it = holds.find(data);
    if (it == holds.end() || --it->second > 0) return;
    holds.erase(it);
    if (held_of == data) held_of = nullptr;
  }
  void* scratch(Role role, size_t bytes) {
    Scratch& s = role == kSrc ? src_copy : role == kWeights ? weights_copy : dst_copy;
    return s.get(bytes);
  }

  ConvPrimitive& get(Pass pass, const Conv3dShape& s, bool bias) {
    const Key key = key_of(pass, s, bias);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    std::optional<ConvPrimitive> p;
    if (s.precision == Precision::bf16) p = make(pass, s, bias, Precision::bf16);
    if (!p) p = make(pass, s, bias, Precision::f32);
    return cache.emplace(key, std::move(*p)).first->second;
  }

  // The primitive at `precision`; none at bf16 where oneDNN has only a reference kernel for it.
  std::optional<ConvPrimitive> make(Pass pass, const Conv3dShape& s, bool bias,
                                    Precision precision) {
    const bool bf16 = precision == Precision::bf16;
    const Descs d = descs_of(s, bias, types_of(pass, precision));
    const auto algo = dnnl::algorithm::convolution_direct;
    // The backward passes' hint: the forward at the pass's precision (bf16 in, fp32 out).
    const auto hint =
        forward_pd(bf16 ? descs_of(s, bias, types_of(Pass::forward, precision)) : d, bias, engine);
    ConvPrimitive p;
    p.bias = d.bias;
    p.precision = precision;
    auto operands = [&](const memory::desc& src, const memory::desc& weights,
                        const memory::desc& dst) {
      p.src = ReorderedOperand(src, d.src, engine);
      p.weights = ReorderedOperand(weights, d.weights, engine);
      p.dst = ReorderedOperand(dst, d.dst, engine);
    };
    switch (pass) {
      case Pass::forward:
        if (bf16 && reference_kernel(hint)) return std::nullopt;
        p.p = dnnl::convolution_forward(hint);
        operands(hint.src_desc(), hint.weights_desc(), hint.dst_desc());
        break;
      case Pass::backward_data: {
        const dnnl::convolution_backward_data::primitive_desc pd(
            {algo, d.src_any, d.weights_any, d.dst_any, d.strides, d.padding, d.padding}, engine,
            hint);
        if (bf16 && reference_kernel(pd)) return std::nullopt;
        p.p = dnnl::convolution_backward_data(pd);
        operands(pd.diff_src_desc(), pd.weights_desc(), pd.diff_dst_desc());
        break;
      }
      case Pass::backward_weights: {
        const auto pd =
            bias ? dnnl::convolution_backward_weights::primitive_desc(
                       {algo, d.src_any, d.weights_any, d.bias, d.dst_any, d.strides, d.padding,
                        d.padding},
                       engine, hint)
                 : dnnl::convolution_backward_weights::primitive_desc(
                       {algo, d.src_any, d.weights_any, d.dst_any, d.strides, d.padding, d.padding},
                       engine, hint);
        if (bf16 && reference_kernel(pd)) return std::nullopt;
        p.p = dnnl::convolution_backward_weights(pd);
        operands(pd.src_desc(), pd.diff_weights_desc(), pd.diff_dst_desc());
        break;
      }
    }
    return p;
  }

  dnnl::memory wrap(const dnnl::memory::desc& desc, const Tensor& t, const char* what) const {
    return dnnl::memory(desc, engine, f32_data(t, what));
  }

  // An input in the primitive's layout: the tensor itself, or its copy in the role's scratch.
  dnnl::memory in(ReorderedOperand& o, Role role, const Tensor& t, const char* what,
                  KernelLog* log) {
    const float* data = f32_data(t, what);
    if (!o.reordered()) return o.in(engine, stream, data, nullptr);
    if (reuse_held && role == kDst && holds.count(data) > 0) {
      void* copy = held_copy.get(o.chosen.get_size());
      if (held_of == data && held_desc == o.chosen) return dnnl::memory(o.chosen, engine, copy);
      held_of = nullptr;  // held_copy is rewritten now
      const OpScope op_scope(log, [&] { return "conv3d reorder in " + std::to_string(t.numel()); });
      dnnl::memory m = o.in(engine, stream, data, copy);
      held_of = data, held_desc = o.chosen;
      return m;
    }
    const OpScope op_scope(log, [&] { return "conv3d reorder in " + std::to_string(t.numel()); });
    return o.in(engine, stream, data, scratch(role, o.chosen.get_size()));
  }

  // An output: the primitive writes `work` (the role's scratch when the layouts differ), which
  // finish() reorders into the tensor.
  struct Output {
    ReorderedOperand* operand;
    float* data;
    dnnl::memory work;
  };
  Output out(ReorderedOperand& o, Role role, const Tensor& t, const char* what) {
    float* data = f32_data(t, what);
    return {&o, data,
            o.work(engine, data, o.reordered() ? scratch(role, o.chosen.get_size()) : nullptr)};
  }
  void finish(Output& o, KernelLog* log) {
    if (!o.operand->reordered()) return;
    const OpScope op_scope(log, [&] {
      return "conv3d reorder out " + std::to_string(o.operand->user.get_size() / sizeof(float));
    });
    o.operand->out(engine, stream, o.work, o.data);
    stream.wait();
  }

  // The primitive itself, timed apart from the reorders around it.
  void execute(ConvPrimitive& p, const std::unordered_map<int, dnnl::memory>& args, KernelLog* log,
               const char* pass, const Conv3dShape& s) {
    const OpScope op_scope(log, [&] {
      return std::string("conv3d ") + pass + (p.precision == Precision::bf16 ? " bf16 " : " ") +
             conv_gemm_shape(s, false);
    });
    p.p.execute(stream, args);
    stream.wait();
  }
};

CpuBackend::Conv3dPrimitives& CpuBackend::conv3d_primitives() {
  if (!conv3d_) conv3d_ = std::make_shared<Conv3dPrimitives>(host_);
  return *conv3d_;
}

void* CpuBackend::conv_copy(int role, size_t bytes) {
  return conv3d_primitives().scratch(static_cast<Role>(role), bytes);
}

void CpuBackend::conv_hold(const float* data, bool hold) {
  if (hold)
    conv3d_primitives().hold(data);
  else if (conv3d_)
    conv3d_->release(data);
}

void CpuBackend::do_conv3d(const Conv3dShape& s, const Tensor& x, const Tensor& w,
                           const Tensor* bias, Tensor& y) {
  expect_products(s, "conv3d");
  Conv3dPrimitives& c = conv3d_primitives();
  ConvPrimitive& p = c.get(Pass::forward, s, bias != nullptr);
  auto out = c.out(p.dst, kDst, y, "conv3d output");
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, c.in(p.src, kSrc, x, "conv3d input", op_log())},
      {DNNL_ARG_WEIGHTS, c.in(p.weights, kWeights, w, "conv3d weight", op_log())},
      {DNNL_ARG_DST, out.work}};
  if (bias) args.emplace(DNNL_ARG_BIAS, c.wrap(p.bias, *bias, "conv3d bias"));
  c.execute(p, args, op_log(), "fwd", s);
  c.finish(out, op_log());
}

void CpuBackend::do_conv3d_backward_data(const Conv3dShape& s, const Tensor& dy, const Tensor& w,
                                         Tensor& dx) {
  expect_products(s, "conv3d_backward_data");
  Conv3dPrimitives& c = conv3d_primitives();
  ConvPrimitive& p = c.get(Pass::backward_data, s, false);
  auto out = c.out(p.src, kSrc, dx, "conv3d_backward_data dx");
  c.execute(
      p,
      {{DNNL_ARG_DIFF_DST, c.in(p.dst, kDst, dy, "conv3d_backward_data dy", op_log())},
       {DNNL_ARG_WEIGHTS, c.in(p.weights, kWeights, w, "conv3d_backward_data weight", op_log())},
       {DNNL_ARG_DIFF_SRC, out.work}},
      op_log(), "bwd_data", s);
  c.finish(out, op_log());
}

void CpuBackend::do_conv3d_backward_weights(const Conv3dShape& s, const Tensor& x, const Tensor& dy,
                                            Tensor& dw, Tensor* dbias) {
  expect_products(s, "conv3d_backward_weights");
  Conv3dPrimitives& c = conv3d_primitives();
  ConvPrimitive& p = c.get(Pass::backward_weights, s, dbias != nullptr);
  auto out = c.out(p.weights, kWeights, dw, "conv3d_backward_weights dw");
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, c.in(p.src, kSrc, x, "conv3d_backward_weights input", op_log())},
      {DNNL_ARG_DIFF_DST, c.in(p.dst, kDst, dy, "conv3d_backward_weights dy", op_log())},
      {DNNL_ARG_DIFF_WEIGHTS, out.work}};
  if (dbias)
    args.emplace(DNNL_ARG_DIFF_BIAS, c.wrap(p.bias, *dbias, "conv3d_backward_weights dbias"));
  c.execute(p, args, op_log(), "bwd_weights", s);
  c.finish(out, op_log());
}

#else  // the loops

void CpuBackend::do_conv3d(const Conv3dShape& s, const Tensor& x, const Tensor& w,
                           const Tensor* bias, Tensor& y) {
  expect_products(s, "conv3d");
  conv3d_loops(s, f32_data(x, "conv3d input"), f32_data(w, "conv3d weight"),
               bias ? f32_data(*bias, "conv3d bias") : nullptr, f32_data(y, "conv3d output"));
}

void CpuBackend::do_conv3d_backward_data(const Conv3dShape& s, const Tensor& dy, const Tensor& w,
                                         Tensor& dx) {
  expect_products(s, "conv3d_backward_data");
  conv3d_backward_data_loops(s, f32_data(dy, "conv3d_backward_data dy"),
                             f32_data(w, "conv3d_backward_data weight"),
                             f32_data(dx, "conv3d_backward_data dx"));
}

void CpuBackend::do_conv3d_backward_weights(const Conv3dShape& s, const Tensor& x, const Tensor& dy,
                                            Tensor& dw, Tensor* dbias) {
  expect_products(s, "conv3d_backward_weights");
  conv3d_backward_weights_loops(
      s, f32_data(x, "conv3d_backward_weights input"), f32_data(dy, "conv3d_backward_weights dy"),
      f32_data(dw, "conv3d_backward_weights dw"),
      dbias ? f32_data(*dbias, "conv3d_backward_weights dbias") : nullptr);
}

#endif

}  // namespace sb::cpu
