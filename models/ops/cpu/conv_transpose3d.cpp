// PyTorch's ConvTranspose3d and its two backward ops on the CPU (any kernel, stride, padding).
//
// With oneDNN (STAGEBENCH_HAVE_DNNL): its deconvolution_forward / _backward_data /
// _backward_weights primitives in f32, activations in the shape's own layout (format tags ncdhw
// or ndhwc). oneDNN's deconvolution weights are logically [out, in, k, k, k]; PyTorch's
// [in, out, k, k, k] is exactly that under the iodhw tag, so the user weights are described as
// iodhw and the primitives pick their own weight layout (format any): a oneDNN reorder converts
// w per call (forward, backward data), or dw from the primitive's layout back (backward weights).
// ncdhw activations go through the layout the primitive chooses (format any), reordered in and
// out per call into conv3d's held buffers, as conv3d's do: with plain ncdhw oneDNN ran its
// im2col GEMM (x64:gemm:jit, 43-74 GFLOP/s on the 16-core host, 13% of DynUNet small's step)
// where ndhwc ran its jit kernels. Primitives and their weight scratch are cached per shape
// (and per bias/no-bias and precision) for the process. At Precision::bf16 the products read
// bf16 operands (the reorders into the primitive's layout convert them) and write fp32 (y, dx,
// and dW for the fp32 master weights), as conv3d.cpp's; where oneDNN has only a reference
// kernel for a bf16 shape, it runs in fp32.
//
// Without oneDNN: direct loops from the definition, each output element a gather over its
// contributions in a fixed order (deterministic), OpenMP across independent outputs.
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/op_times.h"
#include "models/ops/cpu/parallel.h"

#ifdef STAGEBENCH_HAVE_DNNL
#include <dnnl.hpp>

#include "models/ops/cpu/dnnl_reordered.h"

#include <map>
#include <mutex>
#include <optional>
#include <tuple>
#include <unordered_map>
#endif

namespace sb::cpu {

namespace {

// --- the loop fallback (compiled always; used without oneDNN) ----------------------------------

// Element offsets of one activation tensor in its layout.
struct Volume {
  int64_t c, d, h, w;
  bool channels_last;
  int64_t at(int64_t n, int64_t ch, int64_t z, int64_t y, int64_t x) const {
    return channels_last ? (((n * d + z) * h + y) * w + x) * c + ch
                         : (((n * c + ch) * d + z) * h + y) * w + x;
  }
};

Volume input_volume(const Conv3dShape& s) {
  return {s.in_channels, s.d, s.h, s.w, s.layout == Layout3d::ndhwc};
}
Volume output_volume(const Conv3dShape& s) {
  return {s.out_channels, s.out_size(s.d, true), s.out_size(s.h, true), s.out_size(s.w, true),
          s.layout == Layout3d::ndhwc};
}

// Along one axis, for each output position o: the (input position i, kernel tap t) pairs with
// i * stride - padding + t = o, in increasing t.
using AxisTaps = std::vector<std::vector<std::pair<int64_t, int>>>;
AxisTaps axis_taps(const Conv3dShape& s, int64_t n_in) {
  AxisTaps taps(s.out_size(n_in, true));
  for (int64_t o = 0; o < static_cast<int64_t>(taps.size()); ++o)
    for (int k = 0; k < s.kernel; ++k) {
      const int64_t num = o + s.padding - k;
      if (num < 0 || num % s.stride != 0 || num / s.stride >= n_in) continue;
      taps[o].emplace_back(num / s.stride, k);
    }
  return taps;
}

[[maybe_unused]] void loops_forward(const Conv3dShape& s, const float* x, const float* w,
                                    const float* bias, float* y) {
  const Volume vi = input_volume(s), vo = output_volume(s);
  const int64_t k = s.kernel, k3 = k * k * k, co_n = s.out_channels;
  const AxisTaps tz = axis_taps(s, s.d), ty = axis_taps(s, s.h), tx = axis_taps(s, s.w);
  // One task per (n, output depth plane).
  parallel_for(s.batch * vo.d, vo.h * vo.w * co_n * s.in_channels, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t n = t / vo.d, oz = t % vo.d;
      for (int64_t oy = 0; oy < vo.h; ++oy)
        for (int64_t ox = 0; ox < vo.w; ++ox)
          for (int64_t co = 0; co < co_n; ++co) {
            double acc = bias ? bias[co] : 0.0;
            for (int64_t ci = 0; ci < s.in_channels; ++ci)
              for (const auto& [iz, a] : tz[oz])
                for (const auto& [iy, b] : ty[oy])
                  for (const auto& [ix, c] : tx[ox])
                    acc += double(x[vi.at(n, ci, iz, iy, ix)]) *
                           w[(ci * co_n + co) * k3 + (a * k + b) * k + c];
            y[vo.at(n, co, oz, oy, ox)] = static_cast<float>(acc);
          }
    }
  });
}

[[maybe_unused]] void loops_backward_data(const Conv3dShape& s, const float* dy, const float* w,
                                          float* dx) {
  const Volume vi = input_volume(s), vo = output_volume(s);
  const int64_t k = s.kernel, k3 = k * k * k, co_n = s.out_channels;
  parallel_for(s.batch * s.d, s.h * s.w * co_n * s.in_channels * k3, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t n = t / s.d, iz = t % s.d;
      for (int64_t iy = 0; iy < s.h; ++iy)
        for (int64_t ix = 0; ix < s.w; ++ix)
          for (int64_t ci = 0; ci < s.in_channels; ++ci) {
            double acc = 0;
            for (int64_t co = 0; co < co_n; ++co)
              for (int a = 0; a < k; ++a) {
                const int64_t oz = iz * s.stride - s.padding + a;
                if (oz < 0 || oz >= vo.d) continue;
                for (int b = 0; b < k; ++b) {
                  const int64_t oy = iy * s.stride - s.padding + b;
                  if (oy < 0 || oy >= vo.h) continue;
                  for (int c = 0; c < k; ++c) {
                    const int64_t ox = ix * s.stride - s.padding + c;
                    if (ox < 0 || ox >= vo.w) continue;
                    acc += double(dy[vo.at(n, co, oz, oy, ox)]) *
                           w[(ci * co_n + co) * k3 + (a * k + b) * k + c];
                  }
                }
              }
            dx[vi.at(n, ci, iz, iy, ix)] = static_cast<float>(acc);
          }
    }
  });
}

[[maybe_unused]] void loops_backward_weights(const Conv3dShape& s, const float* x, const float* dy,
                                             float* dw, float* dbias) {
  const Volume vi = input_volume(s), vo = output_volume(s);
  const int64_t k = s.kernel, k3 = k * k * k, co_n = s.out_channels;
  // One task per (ci, co) pair: its k^3 taps summed over every sample and input voxel.
  parallel_for(s.in_channels * co_n, s.batch * s.d * s.h * s.w * k3, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t ci = t / co_n, co = t % co_n;
      for (int a = 0; a < k; ++a)
        for (int b = 0; b < k; ++b)
          for (int c = 0; c < k; ++c) {
            double acc = 0;
            for (int64_t n = 0; n < s.batch; ++n)
              for (int64_t iz = 0; iz < s.d; ++iz) {
                const int64_t oz = iz * s.stride - s.padding + a;
                if (oz < 0 || oz >= vo.d) continue;
                for (int64_t iy = 0; iy < s.h; ++iy) {
                  const int64_t oy = iy * s.stride - s.padding + b;
                  if (oy < 0 || oy >= vo.h) continue;
                  for (int64_t ix = 0; ix < s.w; ++ix) {
                    const int64_t ox = ix * s.stride - s.padding + c;
                    if (ox < 0 || ox >= vo.w) continue;
                    acc += double(x[vi.at(n, ci, iz, iy, ix)]) * dy[vo.at(n, co, oz, oy, ox)];
                  }
                }
              }
            dw[(ci * co_n + co) * k3 + (a * k + b) * k + c] = static_cast<float>(acc);
          }
    }
  });
  if (dbias == nullptr) return;
  for (int64_t co = 0; co < co_n; ++co) {
    double acc = 0;
    for (int64_t n = 0; n < s.batch; ++n)
      for (int64_t z = 0; z < vo.d; ++z)
        for (int64_t y = 0; y < vo.h; ++y)
          for (int64_t xx = 0; xx < vo.w; ++xx) acc += dy[vo.at(n, co, z, y, xx)];
    dbias[co] = static_cast<float>(acc);
  }
}

#ifdef STAGEBENCH_HAVE_DNNL

// --- oneDNN ------------------------------------------------------------------------------------

using dnnl::memory;
using Tag = memory::format_tag;
using DT = memory::data_type;

enum class Kind : int { forward, backward_data, backward_weights };

// Everything that makes a different primitive.
using TransposeKey = std::tuple<Kind, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int,
                                int, int, Layout3d, bool, Precision>;

struct Cached {
  dnnl::primitive primitive;
  ReorderedOperand src, dst;      // activations (weights: below)
  memory::desc weights, bias;     // the primitive's (weights: possibly blocked)
  memory::desc user_weights;      // iodhw
  memory weights_scratch;         // in the primitive's layout when it differs
  dnnl::reorder weights_reorder;  // user -> primitive (or back, for backward weights)
  bool reorder = false;
  bool bf16 = false;  // the products in bf16 (else f32)
};

struct Dnnl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  std::mutex mutex;
  std::map<TransposeKey, Cached> cache;
};

Dnnl& dnnl_state() {
  static Dnnl state;
  return state;
}

memory::dims dims3(int64_t v) {
  return {v, v, v};
}

// The primitive of `kind` in bf16 (bf16 operands read, fp32 written) or f32; at bf16, nullopt
// where oneDNN has only a reference kernel for it.
std::optional<Cached> make_primitive(Dnnl& st, Kind kind, const Conv3dShape& s, bool bias,
                                     bool bf16) {
  const Tag act = s.layout == Layout3d::ndhwc ? Tag::ndhwc : Tag::ncdhw;
  const Tag chosen = s.layout == Layout3d::ndhwc ? Tag::ndhwc : Tag::any;
  // What each operand is made with: the products' inputs in bf16, their outputs in fp32.
  const DT half = bf16 ? DT::bf16 : DT::f32;
  const DT src_type = kind == Kind::backward_data ? DT::f32 : half;
  const DT dst_type = kind == Kind::forward ? DT::f32 : half;
  const DT weights_type = kind == Kind::backward_weights ? DT::f32 : half;
  const memory::dims src_dims{s.batch, s.in_channels, s.d, s.h, s.w};
  const memory::dims dst_dims{s.batch, s.out_channels, s.out_size(s.d, true), s.out_size(s.h, true),
                              s.out_size(s.w, true)};
  const memory::desc src_user(src_dims, DT::f32, act), dst_user(dst_dims, DT::f32, act);
  const memory::desc src(src_dims, src_type, chosen), dst(dst_dims, dst_type, chosen);
  const memory::dims wdims{s.out_channels, s.in_channels, s.kernel, s.kernel, s.kernel};
  const memory::desc user_weights(wdims, DT::f32, Tag::iodhw);
  const memory::desc any_weights(wdims, weights_type, Tag::any);
  // The backward passes' hint: the forward at the same precision (bf16 in, fp32 out).
  const memory::desc fwd_src(src_dims, half, chosen), fwd_dst(dst_dims, DT::f32, chosen);
  const memory::desc fwd_weights(wdims, half, Tag::any);
  const memory::desc bias_desc({s.out_channels}, DT::f32, Tag::a);
  const memory::dims strides = dims3(s.stride), pad = dims3(s.padding);
  const auto alg = dnnl::algorithm::deconvolution_direct;

  // The forward descriptor (the hint for both backward ones).
  const auto fwd_desc =
      bias ? dnnl::deconvolution_forward::desc(dnnl::prop_kind::forward_training, alg, fwd_src,
                                               fwd_weights, bias_desc, fwd_dst, strides, pad, pad)
           : dnnl::deconvolution_forward::desc(dnnl::prop_kind::forward_training, alg, fwd_src,
                                               fwd_weights, fwd_dst, strides, pad, pad);
  const dnnl::deconvolution_forward::primitive_desc fwd_pd(fwd_desc, st.engine);

  Cached c;
  c.bias = bias_desc;
  c.user_weights = user_weights;
  c.bf16 = bf16;
  switch (kind) {
    case Kind::forward:
      if (bf16 && reference_kernel(fwd_pd)) return std::nullopt;
      c.primitive = dnnl::deconvolution_forward(fwd_pd);
      c.weights = fwd_pd.weights_desc();
      c.src = ReorderedOperand(fwd_pd.src_desc(), src_user, st.engine);
      c.dst = ReorderedOperand(fwd_pd.dst_desc(), dst_user, st.engine);
      break;
    case Kind::backward_data: {
      const dnnl::deconvolution_backward_data::desc d(alg, src, any_weights, dst, strides, pad,
                                                      pad);
      const dnnl::deconvolution_backward_data::primitive_desc pd(d, st.engine, fwd_pd);
      if (bf16 && reference_kernel(pd)) return std::nullopt;
      c.primitive = dnnl::deconvolution_backward_data(pd);
      c.weights = pd.weights_desc();
      c.src = ReorderedOperand(pd.diff_src_desc(), src_user, st.engine);
      c.dst = ReorderedOperand(pd.diff_dst_desc(), dst_user, st.engine);
      break;
    }
    case Kind::backward_weights: {
      const auto d = bias ? dnnl::deconvolution_backward_weights::desc(
                                alg, src, any_weights, bias_desc, dst, strides, pad, pad)
                          : dnnl::deconvolution_backward_weights::desc(alg, src, any_weights, dst,
                                                                       strides, pad, pad);
      const dnnl::deconvolution_backward_weights::primitive_desc pd(d, st.engine, fwd_pd);
      if (bf16 && reference_kernel(pd)) return std::nullopt;
      c.primitive = dnnl::deconvolution_backward_weights(pd);
      c.weights = pd.diff_weights_desc();
      c.src = ReorderedOperand(pd.src_desc(), src_user, st.engine);
      c.dst = ReorderedOperand(pd.diff_dst_desc(), dst_user, st.engine);
      break;
    }
  }
  if (c.weights != user_weights) {
    c.reorder = true;
    c.weights_scratch = memory(c.weights, st.engine);
    c.weights_reorder = kind == Kind::backward_weights
                            ? dnnl::reorder(c.weights_scratch, memory(user_weights, st.engine))
                            : dnnl::reorder(memory(user_weights, st.engine), c.weights_scratch);
  }
  return c;
}

Cached& primitive_for(Dnnl& st, Kind kind, const Conv3dShape& s, bool bias) {
  const TransposeKey key{kind,     s.batch,  s.in_channels, s.out_channels, s.d,  s.h,        s.w,
                         s.kernel, s.stride, s.padding,     s.layout,       bias, s.precision};
  auto it = st.cache.find(key);
  if (it != st.cache.end()) return it->second;
  std::optional<Cached> c;
  if (s.precision == Precision::bf16) c = make_primitive(st, kind, s, bias, true);
  if (!c) c = make_primitive(st, kind, s, bias, false);
  return st.cache.emplace(key, std::move(*c)).first->second;
}

// The weights as the primitive reads them: w itself, or w reordered into the scratch.
memory weights_in(Dnnl& st, Cached& c, const float* w) {
  memory user(c.user_weights, st.engine, const_cast<float*>(w));
  if (!c.reorder) return user;
  c.weights_reorder.execute(st.stream, user, c.weights_scratch);
  return c.weights_scratch;
}

// conv_copy's roles (cpu_backend_impl.h): the weights keep their own scratch.
constexpr int kSrcCopy = 0, kDstCopy = 2;

#endif  // STAGEBENCH_HAVE_DNNL

}  // namespace

void CpuBackend::do_conv_transpose3d(const Conv3dShape& s, const Tensor& x, const Tensor& w,
                                     const Tensor* bias, Tensor& y) {
  const OpScope op_scope(op_log(), [&] {
    return std::string("conv_transpose3d fwd") + (s.precision == Precision::bf16 ? " bf16 " : " ") +
           conv_gemm_shape(s, true);
  });
  const float* xp = f32_data(x, "conv_transpose3d input");
  const float* wp = f32_data(w, "conv_transpose3d weight");
  const float* bp = bias ? f32_data(*bias, "conv_transpose3d bias") : nullptr;
  float* yp = f32_data(y, "conv_transpose3d output");
#ifdef STAGEBENCH_HAVE_DNNL
  Dnnl& st = dnnl_state();
  std::lock_guard<std::mutex> lock(st.mutex);
  auto copy_for = [this](const ReorderedOperand& a, int role) -> void* {
    return a.reordered() ? conv_copy(role, a.chosen.get_size()) : nullptr;
  };
  Cached& c = primitive_for(st, Kind::forward, s, bp != nullptr);
  const dnnl::memory y_work = c.dst.work(st.engine, yp, copy_for(c.dst, kDstCopy));
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, c.src.in(st.engine, st.stream, xp, copy_for(c.src, kSrcCopy))},
      {DNNL_ARG_WEIGHTS, weights_in(st, c, wp)},
      {DNNL_ARG_DST, y_work}};
  if (bp != nullptr)
    args.emplace(DNNL_ARG_BIAS, dnnl::memory(c.bias, st.engine, const_cast<float*>(bp)));
  c.primitive.execute(st.stream, args);
  c.dst.out(st.engine, st.stream, y_work, yp);
  st.stream.wait();
#else
  loops_forward(s, xp, wp, bp, yp);
#endif
}

void CpuBackend::do_conv_transpose3d_backward_data(const Conv3dShape& s, const Tensor& dy,
                                                   const Tensor& w, Tensor& dx) {
  const OpScope op_scope(op_log(), [&] {
    return std::string("conv_transpose3d bwd_data") +
           (s.precision == Precision::bf16 ? " bf16 " : " ") + conv_gemm_shape(s, true);
  });
  const float* dyp = f32_data(dy, "conv_transpose3d_backward_data dy");
  const float* wp = f32_data(w, "conv_transpose3d_backward_data weight");
  float* dxp = f32_data(dx, "conv_transpose3d_backward_data dx");
#ifdef STAGEBENCH_HAVE_DNNL
  Dnnl& st = dnnl_state();
  std::lock_guard<std::mutex> lock(st.mutex);
  auto copy_for = [this](const ReorderedOperand& a, int role) -> void* {
    return a.reordered() ? conv_copy(role, a.chosen.get_size()) : nullptr;
  };
  Cached& c = primitive_for(st, Kind::backward_data, s, false);
  const dnnl::memory dx_work = c.src.work(st.engine, dxp, copy_for(c.src, kSrcCopy));
  c.primitive.execute(st.stream, {{DNNL_ARG_DIFF_DST,
                                   c.dst.in(st.engine, st.stream, dyp, copy_for(c.dst, kDstCopy))},
                                  {DNNL_ARG_WEIGHTS, weights_in(st, c, wp)},
                                  {DNNL_ARG_DIFF_SRC, dx_work}});
  c.src.out(st.engine, st.stream, dx_work, dxp);
  st.stream.wait();
#else
  loops_backward_data(s, dyp, wp, dxp);
#endif
}

void CpuBackend::do_conv_transpose3d_backward_weights(const Conv3dShape& s, const Tensor& x,
                                                      const Tensor& dy, Tensor& dw, Tensor* dbias) {
  const OpScope op_scope(op_log(), [&] {
    return std::string("conv_transpose3d bwd_weights") +
           (s.precision == Precision::bf16 ? " bf16 " : " ") + conv_gemm_shape(s, true);
  });
  const float* xp = f32_data(x, "conv_transpose3d_backward_weights input");
  const float* dyp = f32_data(dy, "conv_transpose3d_backward_weights dy");
  float* dwp = f32_data(dw, "conv_transpose3d_backward_weights dw");
  float* dbp = dbias ? f32_data(*dbias, "conv_transpose3d_backward_weights dbias") : nullptr;
#ifdef STAGEBENCH_HAVE_DNNL
  Dnnl& st = dnnl_state();
  std::lock_guard<std::mutex> lock(st.mutex);
  auto copy_for = [this](const ReorderedOperand& a, int role) -> void* {
    return a.reordered() ? conv_copy(role, a.chosen.get_size()) : nullptr;
  };
  Cached& c = primitive_for(st, Kind::backward_weights, s, dbp != nullptr);
  dnnl::memory user(c.user_weights, st.engine, dwp);
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, c.src.in(st.engine, st.stream, xp, copy_for(c.src, kSrcCopy))},
      {DNNL_ARG_DIFF_DST, c.dst.in(st.engine, st.stream, dyp, copy_for(c.dst, kDstCopy))},
      {DNNL_ARG_DIFF_WEIGHTS, c.reorder ? c.weights_scratch : user}};
  if (dbp != nullptr) args.emplace(DNNL_ARG_DIFF_BIAS, dnnl::memory(c.bias, st.engine, dbp));
  c.primitive.execute(st.stream, args);
  if (c.reorder) c.weights_reorder.execute(st.stream, c.weights_scratch, user);
  st.stream.wait();
#else
  loops_backward_weights(s, xp, dyp, dwp, dbp);
#endif
}

}  // namespace sb::cpu
