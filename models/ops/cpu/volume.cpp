// The 3-D volume ops that are not convolutions: InstanceNorm3d and its backward, the axis-1
// concatenation and slice, and the soft Dice loss. A (n, c) instance's voxels sit at
// base(n, c) + v * stride: ncdhw [N, C, V] (stride 1), ndhwc [N, V, C] (stride C). Statistics
// run in double, in an order fixed by the shape (ncdhw: one (n, c) per task, 16 interleaved
// lanes; ndhwc: fixed voxel blocks added in block order), and per-channel sums over the batch in
// batch order: the same bits on every call, whatever the threads.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "models/ops/cpu/activation.h"
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/op_times.h"
#include "models/ops/cpu/parallel.h"
#include "models/ops/knobs.h"

namespace sb::cpu {

namespace {

// Where instance (n, c) of a [batch, channels, voxels] volume starts and how its voxels step.
struct Instances {
  int64_t batch, channels, voxels;
  Layout3d layout;
  int64_t base(int64_t i) const {  // i = n * channels + c
    if (layout == Layout3d::ncdhw) return i * voxels;
    const int64_t n = i / channels, c = i % channels;
    return n * voxels * channels + c;
  }
  int64_t stride() const { return layout == Layout3d::ncdhw ? 1 : channels; }
  int64_t count() const { return batch * channels; }
};

Instances instances(const Tensor& x, Layout3d layout, int64_t batch, int64_t channels) {
  return {batch, channels, x.numel() / (batch * channels), layout};
}

// sum over v < n of f(v) in double, in 16 interleaved partial sums added in a fixed order: the
// compiler keeps them in vector registers, where a plain `s += f(v)` loop is one dependent chain
// of double adds (4 cycles each; Eigen's cast<double>().sum() is that chain too). A 32^3
// instance's pass took 28 us that way and 2 us this way; DynUNet's norms, two or three passes an
// instance, were 20% of its CPU step on the 2-core VM. The bits depend on n alone, not on threads.
template <class F>
double lanes_sum(int64_t n, F&& f) {
  constexpr int kLanes = 16;
  double part[kLanes] = {};
  int64_t v = 0;
  for (; v + kLanes <= n; v += kLanes)
    for (int j = 0; j < kLanes; ++j) part[j] += f(v + j);
  double s = 0;
  for (double p : part) s += p;
  for (; v < n; ++v) s += f(v);
  return s;
}

// lanes_sum of x and of dy in one sweep, each with its own 16 lanes in the same order: the
// same two sums, bit for bit, as two lanes_sum calls (ncdhw's norm backward: sum x for the mean
// beside sum dy, one sweep of the instance fewer).
inline void lanes_sum2(int64_t n, const float* x, const float* dy, double* sx, double* sdy) {
  constexpr int kLanes = 16;
  double px[kLanes] = {}, pd[kLanes] = {};
  int64_t v = 0;
  for (; v + kLanes <= n; v += kLanes)
    for (int j = 0; j < kLanes; ++j) {
      px[j] += double{x[v + j]};
      pd[j] += double{dy[v + j]};
    }
  double a = 0, b = 0;
  for (int j = 0; j < kLanes; ++j) {
    a += px[j];
    b += pd[j];
  }
  for (; v < n; ++v) {
    a += double{x[v]};
    b += double{dy[v]};
  }
  *sx = a;
  *sdy = b;
}

// Mean and 1 / sqrt(biased variance + eps) of one contiguous (ncdhw) instance, two passes in
// double.
void moments(const float* x, int64_t voxels, float eps, double* mean, double* rstd) {
  const double m =
      lanes_sum(voxels, [&](int64_t v) { return double{x[v]}; }) / static_cast<double>(voxels);
  const double q = lanes_sum(voxels, [&](int64_t v) {
    const double d = x[v] - m;
    return d * d;
  });
  *mean = m;
  *rstd = 1.0 / std::sqrt(q / static_cast<double>(voxels) + static_cast<double>(eps));
}

// Calls fn(act_fn) with act as a scalar functor the compiler can vectorize: the epilogue of a
// fused norm. The choice is made once per call, not per element (a per-element branch on the
// sign of LeakyReLU's input mispredicts half the time and made the fused norm slower than the
// norm and a separate vectorized activation).
template <class Fn>
void with_scalar_act(Act act, Fn&& fn) {
  switch (act) {
    case Act::none:
      fn([](float t) { return t; });
      return;
    case Act::leaky_relu:  // DynUNet's: slope 0.01 below zero, as activation.h
      fn([](float t) { return std::max(t, 0.01f * t); });
      return;
    default:
      fn([act](float t) {
        float out = 0;
        const Eigen::Array<float, 1, 1> in(t);
        with_activation(act, in, [&](const auto& e) { out = Eigen::Array<float, 1, 1>(e)(0); });
        return out;
      });
  }
}

// y[e] = act(x[e] scale + shift (+ r[e])) over e = at + v * stride, v < voxels: one instance.
template <class ActFn>
void store_normalized(const float* xp, const float* rp, ActFn act, float scale, float shift,
                      int64_t at, int64_t stride, int64_t voxels, float* yp) {
  if (rp) {
    for (int64_t v = 0; v < voxels; ++v) {
      const int64_t e = at + v * stride;
      yp[e] = act(xp[e] * scale + shift + rp[e]);
    }
  } else {
    for (int64_t v = 0; v < voxels; ++v) {
      const int64_t e = at + v * stride;
      yp[e] = act(xp[e] * scale + shift);
    }
  }
}

// One ndhwc voxel row of C channels: y = act(x scale[c] + shift[c] (+ r)), contiguous.
template <class ActFn>
void store_row(const float* x, const float* r, ActFn act, const float* scale, const float* shift,
               int64_t channels, float* y) {
  if (r) {
    for (int64_t c = 0; c < channels; ++c) y[c] = act(x[c] * scale[c] + shift[c] + r[c]);
  } else {
    for (int64_t c = 0; c < channels; ++c) y[c] = act(x[c] * scale[c] + shift[c]);
  }
}

// ndhwc: sample n is V rows of C channels. Its per-channel sums run over fixed blocks of
// kVoxelBlock rows, each block's partials in double, then added in block order, so the bits
// depend on the shape alone. (One task per sample before 3ce2819, and its sums one chain per
// channel: two busy threads of 16 for DynUNet small's batch of 2.)
constexpr int64_t kVoxelBlock = 512;
// Channels a task sums: a (sample, block) pair splits further into groups of channels, which
// leaves each channel's partials, and so the bits, as they were. A 16^3 x 32 sample is 8 blocks,
// an 8^3 x 64 one a single block: with one task a (sample, block), and the samples one after
// another, 4 and 1 of 16 threads worked and channels-last's norm backward there took 5x the
// ncdhw path's (lead38 call 2's op table).
constexpr int64_t kChannelGroup = 16;

// K per-channel sums of every sample at once: out[k][n C + c] = sum over v < V of
// f(n, v, c)[k], each block's partials in double (from zero, in voxel order), added over the
// blocks in block order from zero: what the per-sample channel_sums of 3ce2819 computed, bit for
// bit, with every (sample, block, channel group) one task of one parallel region, and the K sums
// that need no earlier result in one sweep.
template <int K, class F>
void channel_sums(int64_t batch, int64_t voxels, int64_t channels, F&& f,
                  std::array<std::vector<double>, K>& out, std::vector<double>& partial) {
  const int64_t blocks = (voxels + kVoxelBlock - 1) / kVoxelBlock;
  const int64_t groups = (channels + kChannelGroup - 1) / kChannelGroup;
  const int64_t row = K * channels;  // one (sample, block)'s partials: [k][c]
  partial.assign(static_cast<size_t>(batch * blocks * row), 0.0);
  const int64_t tasks = batch * blocks * groups;
  // Each element is a few double operations per sum, converted from float.
  parallel_for(
      tasks, 4 * K * kVoxelBlock * std::min(channels, kChannelGroup), [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t g = t % groups, b = t / groups % blocks, n = t / (groups * blocks);
          const int64_t c0 = g * kChannelGroup, c1 = std::min(channels, c0 + kChannelGroup);
          double* part = partial.data() + (n * blocks + b) * row;
          const int64_t v1 = std::min(voxels, (b + 1) * kVoxelBlock);
          for (int64_t v = b * kVoxelBlock; v < v1; ++v)
            for (int64_t c = c0; c < c1; ++c) {
              const std::array<double, K> term = f(n, v, c);
              for (int k = 0; k < K; ++k) part[k * channels + c] += term[k];
            }
        }
      });
  for (auto& o : out) o.assign(static_cast<size_t>(batch * channels), 0.0);
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t b = 0; b < blocks; ++b) {
      const double* part = partial.data() + (n * blocks + b) * row;
      for (int k = 0; k < K; ++k)
        for (int64_t c = 0; c < channels; ++c) out[k][n * channels + c] += part[k * channels + c];
    }
}

// Every sample's and channel's mean and 1 / sqrt(biased variance + eps) over an ndhwc batch
// ([n C + c]), two passes (each over the whole batch); with dy, its per-channel sums (sdy) in
// the first pass.
void channels_last_moments(const float* x, const float* dy, int64_t batch, int64_t channels,
                           int64_t voxels, float eps, std::vector<double>& mean,
                           std::vector<double>& rstd, std::vector<double>* sdy,
                           std::vector<double>& partial) {
  const int64_t C = channels, VC = voxels * channels;
  if (dy) {
    std::array<std::vector<double>, 2> s;
    channel_sums<2>(
        batch, voxels, C,
        [&](int64_t n, int64_t v, int64_t c) {
          const int64_t e = n * VC + v * C + c;
          return std::array<double, 2>{double{x[e]}, double{dy[e]}};
        },
        s, partial);
    mean = std::move(s[0]);
    *sdy = std::move(s[1]);
  } else {
    std::array<std::vector<double>, 1> s;
    channel_sums<1>(
        batch, voxels, C,
        [&](int64_t n, int64_t v, int64_t c) {
          return std::array<double, 1>{double{x[n * VC + v * C + c]}};
        },
        s, partial);
    mean = std::move(s[0]);
  }
  for (double& m : mean) m /= static_cast<double>(voxels);
  std::array<std::vector<double>, 1> q;
  const double* mp = mean.data();
  channel_sums<1>(
      batch, voxels, C,
      [&](int64_t n, int64_t v, int64_t c) {
        const double d = x[n * VC + v * C + c] - mp[n * C + c];
        return std::array<double, 1>{d * d};
      },
      q, partial);
  rstd = std::move(q[0]);
  for (double& r : rstd)
    r = 1.0 / std::sqrt(r / static_cast<double>(voxels) + static_cast<double>(eps));
}

}  // namespace

void CpuBackend::do_instance_norm(const Tensor& x, Layout3d layout, int64_t batch, int64_t channels,
                                  const Tensor& gamma, const Tensor& beta, float eps, Tensor& y,
                                  const NormEpilogue& ep) {
  const OpScope op_scope(op_log(), [&] { return "instance_norm " + std::to_string(x.numel()); });
  const Instances in = instances(x, layout, batch, channels);
  const float* xp = f32_data(x, "instance_norm input");
  const float* gp = f32_data(gamma, "instance_norm gamma");
  const float* bp = f32_data(beta, "instance_norm beta");
  const float* rp = ep.residual ? f32_data(*ep.residual, "instance_norm residual") : nullptr;
  float* yp = f32_data(y, "instance_norm output");
  if (layout == Layout3d::ndhwc) {
    const int64_t C = channels, V = in.voxels;
    std::vector<double> mean, rstd, partial;
    channels_last_moments(xp, nullptr, batch, C, V, eps, mean, rstd, nullptr, partial);
    std::vector<float> scale(static_cast<size_t>(batch * C)), shift(scale);
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t c = 0; c < C; ++c) {
        const int64_t i = n * C + c;
        scale[i] = static_cast<float>(rstd[i] * gp[c]);
        shift[i] = static_cast<float>(bp[c] - mean[i] * rstd[i] * gp[c]);
      }
    // Every sample's rows in one parallel region.
    with_scalar_act(ep.act, [&](auto act) {
      parallel_for(batch * V, 4 * C, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t e = r * C, n = r / V;
          store_row(xp + e, rp ? rp + e : nullptr, act, scale.data() + n * C, shift.data() + n * C,
                    C, yp + e);
        }
      });
    });
    return;
  }
  parallel_for(in.count(), 4 * in.voxels, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t at = in.base(i), c = i % channels;
      double mean, rstd;
      moments(xp + at, in.voxels, eps, &mean, &rstd);
      const float scale = static_cast<float>(rstd * gp[c]);
      const float shift = static_cast<float>(bp[c] - mean * rstd * gp[c]);
      with_scalar_act(ep.act, [&](auto act) {
        store_normalized(xp, rp, act, scale, shift, at, 1, in.voxels, yp);  // ncdhw: contiguous
      });
    }
  });
}

// Per instance: xhat = (x - mean) rstd, g = gamma dy; dx = rstd (g - mean(g) - xhat mean(g xhat)),
// and the instance's sum dy xhat and sum dy, added over the batch per channel in batch order.
void CpuBackend::do_instance_norm_backward(const Tensor& x, Layout3d layout, int64_t batch,
                                           int64_t channels, const Tensor& gamma, float eps,
                                           const Tensor& dy, Tensor& dx, Tensor& dgamma,
                                           Tensor& dbeta) {
  const OpScope op_scope(op_log(),
                         [&] { return "instance_norm_backward " + std::to_string(x.numel()); });
  const Instances in = instances(x, layout, batch, channels);
  const float* xp = f32_data(x, "instance_norm_backward input");
  const float* gp = f32_data(gamma, "instance_norm_backward gamma");
  const float* dyp = f32_data(dy, "instance_norm_backward dy");
  float* dxp = f32_data(dx, "instance_norm_backward dx");
  float* dgp = f32_data(dgamma, "instance_norm_backward dgamma");
  float* dbp = f32_data(dbeta, "instance_norm_backward dbeta");
  std::vector<double> sums(static_cast<size_t>(2 * in.count()));  // [i] sum dy xhat, sum dy
  if (layout == Layout3d::ndhwc) {
    const int64_t C = channels, V = in.voxels;
    const double inv = 1.0 / static_cast<double>(V);
    // Three sweeps over the batch (sum x with sum dy, then the variance, then sum dy xhat) and
    // the dx pass: 3ce2819 made five sweeps a sample, the samples one after another.
    std::vector<double> mean, rstd, sdy, partial;
    channels_last_moments(xp, dyp, batch, C, V, eps, mean, rstd, &sdy, partial);
    std::array<std::vector<double>, 1> s;
    const double* mp = mean.data();
    const double* rsp = rstd.data();
    channel_sums<1>(
        batch, V, C,
        [&](int64_t n, int64_t v, int64_t c) {
          const int64_t e = n * V * C + v * C + c, i = n * C + c;
          return std::array<double, 1>{dyp[e] * ((xp[e] - mp[i]) * rsp[i])};
        },
        s, partial);
    const std::vector<double>& sdyx = s[0];
    std::vector<double> mg(static_cast<size_t>(batch * C)), mgx(mg);
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t c = 0; c < C; ++c) {
        const int64_t i = n * C + c;
        sums[2 * i] = sdyx[i];
        sums[2 * i + 1] = sdy[i];
        mg[i] = gp[c] * sdy[i] * inv;
        mgx[i] = gp[c] * sdyx[i] * inv;
      }
    parallel_for(batch * V, 8 * C, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t at = r * C, i0 = r / V * C;
        for (int64_t c = 0; c < C; ++c) {  // dx may be dy: dy[e] is read before dx[e]
          const int64_t e = at + c, i = i0 + c;
          const double xhat = (xp[e] - mp[i]) * rsp[i];
          dxp[e] = static_cast<float>(rsp[i] * (gp[c] * dyp[e] - mg[i] - xhat * mgx[i]));
        }
      }
    });
  } else {
    parallel_for(in.count(), 8 * in.voxels, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        const int64_t at = in.base(i), c = i % channels;
        const float* xi = xp + at;
        const float* dyi = dyp + at;
        double sx, sdy;
        lanes_sum2(in.voxels, xi, dyi, &sx, &sdy);
        const double mean = sx / static_cast<double>(in.voxels);
        const double q = lanes_sum(in.voxels, [&](int64_t v) {
          const double d = xi[v] - mean;
          return d * d;
        });
        const double rstd =
            1.0 / std::sqrt(q / static_cast<double>(in.voxels) + static_cast<double>(eps));
        const double sdy_xhat =
            lanes_sum(in.voxels, [&](int64_t v) { return dyi[v] * ((xi[v] - mean) * rstd); });
        sums[2 * i] = sdy_xhat;
        sums[2 * i + 1] = sdy;
        const double inv = 1.0 / static_cast<double>(in.voxels);
        const double g = gp[c], mg = g * sdy * inv, mgx = g * sdy_xhat * inv;
        float* dxi = dxp + at;
        for (int64_t v = 0; v < in.voxels; ++v) {  // dx may be dy: dy[v] is read before dx[v]
          const double xhat = (xi[v] - mean) * rstd;
          dxi[v] = static_cast<float>(rstd * (g * dyi[v] - mg - xhat * mgx));
        }
      }
    });
  }
  for (int64_t c = 0; c < channels; ++c) {
    double g = 0, b = 0;
    for (int64_t n = 0; n < batch; ++n) {
      g += sums[2 * (n * channels + c)];
      b += sums[2 * (n * channels + c) + 1];
    }
    dgp[c] = static_cast<float>(g);
    dbp[c] = static_cast<float>(b);
  }
}

namespace {

// Copies of at most kCopyPiece floats, every piece one task: ncdhw's axis-1 concatenation and
// slice copy one contiguous block per sample and input, and DynUNet small's batch of 2 kept two
// threads of 16 copying 8 MB (0.94-0.99 ms a call in lead38 call 2's op table).
constexpr int64_t kCopyPiece = 1 << 14;

struct CopyPiece {
  float* dst;
  const float* src;
  int64_t count;
};

void add_pieces(std::vector<CopyPiece>& pieces, float* dst, const float* src, int64_t count) {
  for (int64_t at = 0; at < count; at += kCopyPiece)
    pieces.push_back({dst + at, src + at, std::min(kCopyPiece, count - at)});
}

void copy_pieces(const std::vector<CopyPiece>& pieces) {
  parallel_for(static_cast<int64_t>(pieces.size()), kCopyPiece, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p)
      std::memcpy(pieces[p].dst, pieces[p].src,
                  static_cast<size_t>(pieces[p].count) * sizeof(float));
  });
}

}  // namespace

void CpuBackend::do_concat_axis1(std::span<const Tensor* const> xs, int64_t outer,
                                 [[maybe_unused]] int64_t inner, Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "concat_axis1 " + std::to_string(y.numel()); });
  float* yp = f32_data(y, "concat_axis1 output");
  const int64_t width = y.numel() / outer;  // C_y * inner floats per outer index
  if (width <= kCopyPiece) {  // many short rows (channels-last: outer = N V): a task a row range
    parallel_for(outer, width, [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) {
        float* dst = yp + o * width;
        for (const Tensor* x : xs) {
          const int64_t block = x->numel() / outer;
          if (block == 0) continue;
          std::memcpy(dst, f32_data(*x, "concat_axis1 input") + o * block,
                      static_cast<size_t>(block) * sizeof(float));
          dst += block;
        }
      }
    });
    return;
  }
  std::vector<CopyPiece> pieces;
  for (int64_t o = 0; o < outer; ++o) {
    float* dst = yp + o * width;
    for (const Tensor* x : xs) {
      const int64_t block = x->numel() / outer;
      if (block == 0) continue;
      add_pieces(pieces, dst, f32_data(*x, "concat_axis1 input") + o * block, block);
      dst += block;
    }
  }
  copy_pieces(pieces);
}

void CpuBackend::do_slice_axis1(const Tensor& x, int64_t outer, int64_t inner, int64_t start,
                                Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "slice_axis1 " + std::to_string(y.numel()); });
  const float* xp = f32_data(x, "slice_axis1 input");
  float* yp = f32_data(y, "slice_axis1 output");
  const int64_t xw = x.numel() / outer, yw = y.numel() / outer;
  if (yw <= kCopyPiece) {
    parallel_for(outer, yw, [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o)
        std::memcpy(yp + o * yw, xp + o * xw + start * inner,
                    static_cast<size_t>(yw) * sizeof(float));
    });
    return;
  }
  std::vector<CopyPiece> pieces;
  for (int64_t o = 0; o < outer; ++o)
    add_pieces(pieces, yp + o * yw, xp + o * xw + start * inner, yw);
  copy_pieces(pieces);
}

// STAGEBENCH_CPU_DICE_BLOCKS: on (default: the soft Dice loss over fixed voxel blocks of every
// instance in parallel, each block's sums added in block order) or off (one task an instance,
// its sums in voxel order, as before 2026-11-29: DynUNet small's two instances kept two threads
// of 16 busy, 1.15-1.25 ms a step on the 16-core host). The sums' order differs, so the loss and
// dlogits may differ in their last bits (the op cases hold both to the double reference).
bool read_dice_blocks() {
  return read_on_off_knob("STAGEBENCH_CPU_DICE_BLOCKS");
}

namespace {

bool dice_blocks() {
  static const bool on = read_dice_blocks();
  return on;
}

// Voxels a block of the soft Dice loss sums: enough that a task outweighs its wake-up (an exp
// an element), few enough that DynUNet small's 2 x 32^3 makes 16 tasks.
constexpr int64_t kDiceBlock = 4096;

double dice_sigmoid(float z) {
  const double e = std::exp(-std::abs(static_cast<double>(z)));
  return z >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}

}  // namespace

// Per instance, p = sigmoid(z): I = sum p t, S = sum p + sum t + smooth, f = 1 - (2 I + smooth)/S;
// loss = mean f over the N C instances, and
//   dz = scale / (N C) * -(2 t S - (2 I + smooth)) / S^2 * p (1 - p).
// The instances' f add in instance order.
void CpuBackend::do_soft_dice_loss(const Tensor& logits, const Tensor& targets, Layout3d layout,
                                   int64_t batch, int64_t channels, float smooth, float scale,
                                   Tensor& loss, int64_t slot, Tensor& dlogits) {
  const OpScope op_scope(op_log(),
                         [&] { return "soft_dice_loss " + std::to_string(logits.numel()); });
  const Instances in = instances(logits, layout, batch, channels);
  const float* zp = f32_data(logits, "soft_dice_loss logits");
  const float* tp = f32_data(targets, "soft_dice_loss targets");
  float* dzp = f32_data(dlogits, "soft_dice_loss dlogits");
  const int64_t stride = in.stride();
  std::vector<double> f(static_cast<size_t>(in.count()));
  const double per = static_cast<double>(scale) / static_cast<double>(in.count());
  // dz over voxels [v0, v1) of instance i, from its sums.
  auto gradient = [&](int64_t i, int64_t v0, int64_t v1, double num, double den) {
    const int64_t at = in.base(i);
    const double k = -per / (den * den);
    for (int64_t v = v0; v < v1; ++v) {
      const int64_t e = at + v * stride;
      const double p = dice_sigmoid(zp[e]);
      dzp[e] = static_cast<float>(k * (2 * tp[e] * den - num) * p * (1 - p));
    }
  };
  if (dice_blocks()) {
    const int64_t blocks = (in.voxels + kDiceBlock - 1) / kDiceBlock;
    const int64_t tasks = in.count() * blocks;
    std::vector<double> part(static_cast<size_t>(3 * tasks));  // [task] I, sum p, sum t
    parallel_for(tasks, kExpOp * kDiceBlock, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t at = in.base(t / blocks), b = t % blocks;
        const int64_t v1 = std::min(in.voxels, (b + 1) * kDiceBlock);
        double inter = 0, sp = 0, st = 0;
        for (int64_t v = b * kDiceBlock; v < v1; ++v) {
          const int64_t e = at + v * stride;
          const double p = dice_sigmoid(zp[e]);
          inter += p * tp[e];
          sp += p;
          st += tp[e];
        }
        part[3 * t] = inter;
        part[3 * t + 1] = sp;
        part[3 * t + 2] = st;
      }
    });
    std::vector<double> num(f.size()), den(f.size());
    for (int64_t i = 0; i < in.count(); ++i) {
      double inter = 0, sp = 0, st = 0;
      for (int64_t b = 0; b < blocks; ++b) {  // block order
        const double* q = part.data() + 3 * (i * blocks + b);
        inter += q[0];
        sp += q[1];
        st += q[2];
      }
      num[i] = 2 * inter + smooth;
      den[i] = sp + st + smooth;
      f[i] = 1 - num[i] / den[i];
    }
    parallel_for(tasks, kExpOp * kDiceBlock, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t i = t / blocks, b = t % blocks;
        gradient(i, b * kDiceBlock, std::min(in.voxels, (b + 1) * kDiceBlock), num[i], den[i]);
      }
    });
  } else {
    parallel_for(in.count(), 16 * in.voxels, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        const int64_t at = in.base(i);
        double inter = 0, sp = 0, st = 0;
        for (int64_t v = 0; v < in.voxels; ++v) {
          const int64_t e = at + v * stride;
          const double p = dice_sigmoid(zp[e]);
          inter += p * tp[e];
          sp += p;
          st += tp[e];
        }
        const double num = 2 * inter + smooth, den = sp + st + smooth;
        f[i] = 1 - num / den;
        gradient(i, 0, in.voxels, num, den);
      }
    });
  }
  double s = 0;
  for (double v : f) s += v;
  f32_data(loss, "soft_dice_loss loss")[slot] = static_cast<float>(s / in.count());
}

}  // namespace sb::cpu
