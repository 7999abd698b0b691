#pragma once
// What the op cases compare against: seeded random inputs and double-precision references,
// written once for every backend.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "models/ops/backend.h"

namespace sb::testing {

using Vec = std::vector<float>;
using DVec = std::vector<double>;

inline Vec random_vec(size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  Vec v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// v rounded to bf16 (nearest, ties to even; finite inputs), still as a float: what a backend
// that computes in bf16 multiplies. A double reference over such values is what bf16 products
// with fp32 accumulation give, up to the accumulation's own rounding.
inline float round_to_bf16(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  std::memcpy(&v, &u, 4);
  return v;
}

inline Vec bf16_rounded(Vec v) {
  for (float& x : v) x = round_to_bf16(x);
  return v;
}

// Relative L2 distance of got from want, in double (NaN: an unwritten element fails every
// bound), for the backend-specific tests that compare whole outputs.
template <typename T>
double rel_l2_of(const Vec& got, const std::vector<T>& want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = double{got[i]} - double{want[i]};
    num += d * d;
    den += double{want[i]} * double{want[i]};
  }
  return std::sqrt(num / den);
}

inline double act_ref(Act a, double x) {
  switch (a) {
    case Act::none:
      return x;
    case Act::relu:
      return x > 0 ? x : 0;
    case Act::gelu:
      return x / (1 + std::exp(-1.702 * x));
    case Act::softplus:
      return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x)));
    case Act::gelu_erf:
      return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case Act::leaky_relu:
      return x > 0 ? x : 0.01 * x;
    case Act::sigmoid:
      return 1 / (1 + std::exp(-x));
  }
  return x;
}

// act'(x) (relu'(0) = 0).
inline double act_grad_ref(Act a, double x) {
  const double pi = 3.14159265358979323846;
  switch (a) {
    case Act::none:
      return 1;
    case Act::relu:
      return x > 0 ? 1 : 0;
    case Act::gelu: {
      const double s = 1 / (1 + std::exp(-1.702 * x));
      return s + 1.702 * x * s * (1 - s);
    }
    case Act::softplus:
      return 1 / (1 + std::exp(-x));
    case Act::gelu_erf:
      return 0.5 * (1 + std::erf(x / std::sqrt(2.0))) +
             x * std::exp(-0.5 * x * x) / std::sqrt(2 * pi);
    case Act::leaky_relu:
      return x > 0 ? 1 : 0.01;
    case Act::sigmoid: {
      const double s = 1 / (1 + std::exp(-x));
      return s * (1 - s);
    }
  }
  return 1;
}

// y = residual + act(x W^T + bias), all [M, N] row-major; bias and residual may be null.
inline DVec linear_ref(const Vec& x, const Vec& w, int64_t m, int64_t n, int64_t k, const Vec* bias,
                       Act act, const Vec* residual) {
  DVec y(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = bias ? (*bias)[j] : 0.0;
      for (int64_t p = 0; p < k; ++p) s += double(x[i * k + p]) * w[j * k + p];
      y[i * n + j] = act_ref(act, s) + (residual ? (*residual)[i * n + j] : 0.0);
    }
  return y;
}

// C as gemm_batched leaves it (GemmBatch's contract, models/ops/op_types.h), in double: c0 is C
// before the call; each item's [m, n] at its offset becomes alpha op(A) op(B) + beta C (C unread
// at beta 0) + bias[column] (`bias` empty: none). Elements outside the items keep c0's values.
inline DVec gemm_batched_ref(const GemmBatch& g, const Vec& a, const Vec& b, const Vec& c0,
                             const Vec& bias = {}) {
  DVec c(c0.begin(), c0.end());
  for (size_t it = 0; it < g.a_offsets.size(); ++it)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        const int64_t ao = g.a_offsets[it], bo = g.b_offsets[it];
        double s = 0;
        for (int64_t p = 0; p < g.k; ++p)
          s += double(g.trans_a ? a[ao + p * g.lda + i] : a[ao + i * g.lda + p]) *
               (g.trans_b ? b[bo + j * g.ldb + p] : b[bo + p * g.ldb + j]);
        double& out = c[g.c_offsets[it] + i * g.ldc + j];
        out = g.alpha * s + (g.beta == 0 ? 0.0 : g.beta * out) + (bias.empty() ? 0.0 : bias[j]);
      }
  return c;
}

// 'same' conv1d, channels last: x [B, L, C] transformed per channel (x scale + shift, then
// in_act; the zero padding stays zero), gathered as im2col does, then linear_ref with w [N, k*C].
inline DVec conv1d_ref(const Vec& x, int64_t batch, int64_t len, int64_t c, int k, const Vec& w,
                       int64_t n, const Vec* scale, const Vec* shift, Act in_act, const Vec* bias,
                       Act act, const Vec* residual) {
  Vec cols(batch * len * k * c, 0.f);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t l = 0; l < len; ++l)
      for (int64_t j = 0; j < k; ++j)
        for (int64_t ch = 0; ch < c; ++ch) {
          const int64_t at = l + j - k / 2;
          if (at < 0 || at >= len) continue;
          double v = x[(b * len + at) * c + ch];
          if (scale) v *= (*scale)[ch];
          if (shift) v += (*shift)[ch];
          cols[(b * len + l) * k * c + j * c + ch] = static_cast<float>(act_ref(in_act, v));
        }
  return linear_ref(cols, w, batch * len, n, k * c, bias, act, residual);
}

// Per row of x [rows, c]: the mean and the variance of the centred values.
inline void moments_ref(const Vec& x, int64_t c, DVec& mean, DVec& var) {
  const size_t rows = x.size() / c;
  mean.assign(rows, 0.0);
  var.assign(rows, 0.0);
  for (size_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < c; ++i) mean[r] += x[r * c + i];
    mean[r] /= c;
    for (int64_t i = 0; i < c; ++i) var[r] += std::pow(x[r * c + i] - mean[r], 2);
    var[r] /= c;
  }
}

inline DVec layernorm_ref(const Vec& x, const Vec& g, const Vec& b, int64_t c, double eps) {
  DVec mean, var, y(x.size());
  moments_ref(x, c, mean, var);
  for (size_t i = 0; i < x.size(); ++i)
    y[i] = (x[i] - mean[i / c]) / std::sqrt(var[i / c] + eps) * g[i % c] + b[i % c];
  return y;
}

// Softmax over the middle axis of x [outer, n, inner] (inner = 1: over rows).
inline DVec softmax_ref(const Vec& x, int64_t outer, int64_t n, int64_t inner) {
  DVec y(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return (o * n + j) * inner + i; };
      double mx = -1e300, sum = 0;
      for (int64_t j = 0; j < n; ++j) mx = std::max(mx, double(x[at(j)]));
      for (int64_t j = 0; j < n; ++j) sum += std::exp(x[at(j)] - mx);
      for (int64_t j = 0; j < n; ++j) y[at(j)] = std::exp(x[at(j)] - mx) / sum;
    }
  return y;
}

// Masked multi-head attention in double, laid out as AttentionShape says (key_bias may be empty).
inline DVec attention_ref(const AttentionShape& s, const Vec& q, const Vec& k, const Vec& v,
                          const Vec& key_bias) {
  DVec out(static_cast<size_t>(s.batch * s.n * s.ld_out), 0.0);
  DVec p(static_cast<size_t>(s.n));
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads; ++h)
      for (int64_t i = 0; i < s.n; ++i) {
        const float* qi = &q[(b * s.n + i) * s.ld_q + s.q_col + h * s.dh];
        double mx = -1e300;
        for (int64_t j = 0; j < s.n; ++j) {
          const float* kj = &k[(b * s.n + j) * s.ld_k + s.k_col + h * s.dh];
          double dot = 0;
          for (int64_t d = 0; d < s.dh; ++d) dot += double(qi[d]) * kj[d];
          p[j] = s.scale * dot + (key_bias.empty() ? 0.0 : key_bias[b * s.n + j]);
          mx = std::max(mx, p[j]);
        }
        double sum = 0;
        for (int64_t j = 0; j < s.n; ++j) sum += (p[j] = std::exp(p[j] - mx));
        double* o = &out[(b * s.n + i) * s.ld_out + h * s.dh];
        for (int64_t j = 0; j < s.n; ++j) {
          const float* vj = &v[(b * s.n + j) * s.ld_v + s.v_col + h * s.dh];
          for (int64_t d = 0; d < s.dh; ++d) o[d] += p[j] / sum * vj[d];
        }
      }
  return out;
}

// Transformer-XL relative attention in double (RelAttentionShape's layout).
struct RelAttentionInputs {
  RelAttentionShape s;
  Vec q, k, v, rel_k, content_bias, pos_bias;

  explicit RelAttentionInputs(RelAttentionShape shape, unsigned seed = 100) : s(shape) {
    const int64_t qk = s.batch * s.n * s.heads * s.dk;
    q = random_vec(qk, seed), k = random_vec(qk, seed + 1);
    v = random_vec(s.batch * s.n * s.heads * s.dv, seed + 2);
    rel_k = random_vec((2 * s.n - 1) * s.heads * s.dk, seed + 3);
    content_bias = random_vec(s.heads * s.dk, seed + 4);
    pos_bias = random_vec(s.heads * s.dk, seed + 5);
  }

  DVec reference() const {
    const int64_t n = s.n, hk = s.heads * s.dk, hv = s.heads * s.dv;
    DVec out(s.batch * n * hv, 0.0), logits(n);
    for (int64_t b = 0; b < s.batch; ++b)
      for (int64_t h = 0; h < s.heads; ++h)
        for (int64_t i = 0; i < n; ++i) {
          double mx = -1e300, sum = 0;
          for (int64_t j = 0; j < n; ++j) {
            double l = 0;
            for (int64_t c = 0; c < s.dk; ++c) {
              const double qv = q[(b * n + i) * hk + h * s.dk + c];
              l += (qv + content_bias[h * s.dk + c]) * k[(b * n + j) * hk + h * s.dk + c];
              l += (qv + pos_bias[h * s.dk + c]) * rel_k[(n - 1 + j - i) * hk + h * s.dk + c];
            }
            mx = std::max(mx, logits[j] = l);
          }
          for (int64_t j = 0; j < n; ++j) sum += (logits[j] = std::exp(logits[j] - mx));
          for (int64_t j = 0; j < n; ++j)
            for (int64_t c = 0; c < s.dv; ++c)
              out[(b * n + i) * hv + h * s.dv + c] +=
                  logits[j] / sum * v[(b * n + j) * hv + h * s.dv + c];
        }
    return out;
  }
};

}  // namespace sb::testing
