// Op cases: the 3-D volume ops that are not convolutions. InstanceNorm3d and its backward and
// the soft Dice loss on both layouts (ncdhw [N, C, V], ndhwc [N, V, C]) against double
// references, the backward and the loss also against central finite differences of the forward
// op on the same backend (gradient_check.h); the axis-1 concatenation and slice as the ncdhw
// channel axis (inner = voxels) and as the ndhwc one (inner = 1).
#include <cmath>
#include <string>

#include "tests/ops/gradient_check.h"
#include "tests/ops/op_case.h"

namespace sb::testing {
namespace {

const char* layout_name(Layout3d l) {
  return l == Layout3d::ncdhw ? "ncdhw" : "ndhwc";
}

// A [batch, channels, voxels] volume stored in `layout`.
struct Volume {
  int64_t n, c, v;
  Layout3d layout;
  int64_t size() const { return n * c * v; }
  int64_t at(int64_t b, int64_t ch, int64_t vox) const {
    return layout == Layout3d::ncdhw ? (b * c + ch) * v + vox : (b * v + vox) * c + ch;
  }
  std::vector<int64_t> shape() const {
    return layout == Layout3d::ncdhw ? std::vector<int64_t>{n, c, v}
                                     : std::vector<int64_t>{n, v, c};
  }
};

// Mean and 1 / sqrt(var + eps) of instance (b, ch).
void moments_ref(const Volume& s, const Vec& x, int64_t b, int64_t ch, double eps, double& mean,
                 double& rstd) {
  double sum = 0, q = 0;
  for (int64_t i = 0; i < s.v; ++i) sum += x[s.at(b, ch, i)];
  mean = sum / s.v;
  for (int64_t i = 0; i < s.v; ++i) q += (x[s.at(b, ch, i)] - mean) * (x[s.at(b, ch, i)] - mean);
  rstd = 1 / std::sqrt(q / s.v + eps);
}

DVec instance_norm_ref(const Volume& s, const Vec& x, const Vec& g, const Vec& b, double eps) {
  DVec y(x.size());
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t c = 0; c < s.c; ++c) {
      double mean, rstd;
      moments_ref(s, x, n, c, eps, mean, rstd);
      for (int64_t i = 0; i < s.v; ++i) {
        const int64_t e = s.at(n, c, i);
        y[e] = (x[e] - mean) * rstd * g[c] + b[c];
      }
    }
  return y;
}

void instance_norm_backward_ref(const Volume& s, const Vec& x, const Vec& g, const Vec& dy,
                                double eps, DVec& dx, DVec& dg, DVec& db) {
  dx.assign(x.size(), 0.0);
  dg.assign(s.c, 0.0);
  db.assign(s.c, 0.0);
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t c = 0; c < s.c; ++c) {
      double mean, rstd;
      moments_ref(s, x, n, c, eps, mean, rstd);
      double sdy = 0, sdyx = 0;
      for (int64_t i = 0; i < s.v; ++i) {
        const int64_t e = s.at(n, c, i);
        sdy += dy[e];
        sdyx += dy[e] * (x[e] - mean) * rstd;
      }
      dg[c] += sdyx;
      db[c] += sdy;
      for (int64_t i = 0; i < s.v; ++i) {
        const int64_t e = s.at(n, c, i);
        const double xhat = (x[e] - mean) * rstd;
        dx[e] = rstd * g[c] * (dy[e] - sdy / s.v - xhat * sdyx / s.v);
      }
    }
}

// MONAI DiceLoss(sigmoid=True, smooth_nr = smooth_dr = smooth), mean over (n, c); dz = scale *
// d loss / d z.
double dice_ref(const Volume& s, const Vec& z, const Vec& t, double smooth, double scale,
                DVec& dz) {
  dz.assign(z.size(), 0.0);
  double loss = 0;
  const double count = static_cast<double>(s.n * s.c);
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t c = 0; c < s.c; ++c) {
      double inter = 0, sp = 0, st = 0;
      for (int64_t i = 0; i < s.v; ++i) {
        const int64_t e = s.at(n, c, i);
        const double p = 1 / (1 + std::exp(-double(z[e])));
        inter += p * t[e];
        sp += p;
        st += t[e];
      }
      const double num = 2 * inter + smooth, den = sp + st + smooth;
      loss += 1 - num / den;
      for (int64_t i = 0; i < s.v; ++i) {
        const int64_t e = s.at(n, c, i);
        const double p = 1 / (1 + std::exp(-double(z[e])));
        dz[e] = scale / count * -(2 * t[e] * den - num) / (den * den) * p * (1 - p);
      }
    }
  return loss / count;
}

constexpr float kInstanceNormEps = 1e-5f;

std::vector<OpCase> instance_norm_cases() {
  std::vector<OpCase> c;
  for (Layout3d layout : {Layout3d::ncdhw, Layout3d::ndhwc}) {
    const std::string name = layout_name(layout);
    // 300 voxels: past a 256-item work-group; shifted, scaled channels.
    c.push_back({Op::instance_norm, name + "_reference", {}, [layout](Backend& be) {
                   const Volume s{2, 3, 300, layout};
                   const Vec x = random_vec(s.size(), 400, -2, 5), g = random_vec(3, 401, 0.5, 2),
                             b = random_vec(3, 402);
                   Tensor y = be.empty(s.shape());
                   be.instance_norm(up(be, x, s.shape()), layout, s.n, s.c, up(be, g, {3}),
                                    up(be, b, {3}), kInstanceNormEps, y);
                   return checks(
                       {{"y", be.download(y), instance_norm_ref(s, x, g, b, kInstanceNormEps),
                         Precision::f32, 1e-4}});
                 }});
    c.push_back(
        {Op::instance_norm, name + "_in_place_single_voxel_rows", {}, [layout](Backend& be) {
           const Volume s{3, 2, 7, layout};
           const Vec x = random_vec(s.size(), 403, -1, 1), g = random_vec(2, 404, 0.5, 2),
                     b = random_vec(2, 405);
           Tensor xt = up(be, x, s.shape());
           be.instance_norm(xt, layout, s.n, s.c, up(be, g, {2}), up(be, b, {2}), 0.1f, xt);
           return checks(
               {{"y", be.download(xt), instance_norm_ref(s, x, g, b, 0.1), Precision::f32, 1e-4}});
         }});
    // The fused epilogue: act(IN(x) + residual), in place on the residual; y announced as held
    // for bf16 reads, as DynUNet's bf16 stages do, so that a backend may write its bf16 copy
    // beside it (the OpenCL backend's instance_norm_apply_bf16: on NVIDIA, and anywhere under
    // STAGEBENCH_CONV_BF16_PRODUCERS=anywhere, as the Oclgrind pass runs). y is the same.
    // 8 channels, 36 voxels: both layouts take the four-elements-an-item kernels (the OpenCL
    // backend's instance_norm_apply4_bf16), where 3 channels keep ndhwc on the scalar ones.
    for (const int64_t channels : {int64_t{3}, int64_t{8}})
      c.push_back(
          {Op::instance_norm,
           name + "_residual_leaky_relu" + (channels == 3 ? "" : "_c8"),
           {},
           [layout, channels](Backend& be) {
             const Volume s = channels == 3 ? Volume{2, 3, 300, layout} : Volume{2, 8, 36, layout};
             const Vec x = random_vec(s.size(), 406, -2, 5),
                       g = random_vec(static_cast<size_t>(channels), 407, 0.5, 2),
                       b = random_vec(static_cast<size_t>(channels), 408),
                       r = random_vec(s.size(), 409);
             Tensor y = up(be, r, s.shape());
             be.will_hold_read_only(y, Precision::bf16);
             be.instance_norm(up(be, x, s.shape()), layout, s.n, s.c, up(be, g, {channels}),
                              up(be, b, {channels}), kInstanceNormEps, y, {&y, Act::leaky_relu});
             const HeldReadOnly held(be, y);
             DVec want = instance_norm_ref(s, x, g, b, kInstanceNormEps);
             for (size_t i = 0; i < want.size(); ++i) {
               const double t = want[i] + r[i];
               want[i] = t > 0 ? t : 0.01 * t;
             }
             return checks({{"y", be.download(y), want, Precision::f32, 1e-4}});
           }});
    // Many voxel chunks a (n, c) on a GPU's split (16 channels side by side in ndhwc, a last
    // chunk cut short), values far from 0 (one-pass sums would cancel), residual + LeakyReLU.
    c.push_back({Op::instance_norm, name + "_chunks_offset", {}, [layout](Backend& be) {
                   const Volume s{2, 16, 4100, layout};
                   const Vec x = random_vec(s.size(), 430, 95, 105),
                             g = random_vec(16, 431, 0.5, 2), b = random_vec(16, 432),
                             r = random_vec(s.size(), 433);
                   Tensor y = up(be, r, s.shape());
                   be.instance_norm(up(be, x, s.shape()), layout, s.n, s.c, up(be, g, {16}),
                                    up(be, b, {16}), kInstanceNormEps, y, {&y, Act::leaky_relu});
                   DVec want = instance_norm_ref(s, x, g, b, kInstanceNormEps);
                   for (size_t i = 0; i < want.size(); ++i) {
                     const double t = want[i] + r[i];
                     want[i] = t > 0 ? t : 0.01 * t;
                   }
                   return checks({{"y", be.download(y), want, Precision::f32, 1e-4}});
                 }});
  }
  return c;
}

// instance_norm_backward on s (x drawn from [lo, hi) by seed, gamma and dy by the next two
// seeds) against the double reference: dx, dgamma and dbeta.
OpCase plain_backward_case(const std::string& name, Volume s, unsigned seed, float lo, float hi) {
  return {Op::instance_norm_backward, name, {}, [s, seed, lo, hi](Backend& be) {
            const Vec x = random_vec(s.size(), seed, lo, hi),
                      g = random_vec(s.c, seed + 1, 0.5, 1.5), dy = random_vec(s.size(), seed + 2);
            Tensor dx = be.empty(s.shape()), dg = be.empty({s.c}), db = be.empty({s.c});
            be.instance_norm_backward(up(be, x, s.shape()), s.layout, s.n, s.c, up(be, g, {s.c}),
                                      kInstanceNormEps, up(be, dy, s.shape()), dx, dg, db);
            DVec dxw, dgw, dbw;
            instance_norm_backward_ref(s, x, g, dy, kInstanceNormEps, dxw, dgw, dbw);
            return checks({{"dx", be.download(dx), dxw, Precision::f32, 1e-4},
                           {"dgamma", be.download(dg), dgw, Precision::f32, 1e-4},
                           {"dbeta", be.download(db), dbw, Precision::f32, 1e-4}});
          }};
}

std::vector<OpCase> instance_norm_backward_cases() {
  std::vector<OpCase> c;
  for (Layout3d layout : {Layout3d::ncdhw, Layout3d::ndhwc}) {
    const std::string name = layout_name(layout);
    c.push_back(
        {Op::instance_norm_backward, name + "_reference_dx_in_place", {}, [layout](Backend& be) {
           const Volume s{3, 4, 290, layout};
           const Vec x = random_vec(s.size(), 410, -2, 3), g = random_vec(4, 411, 0.5, 1.5),
                     dy = random_vec(s.size(), 412);
           Tensor dyt = up(be, dy, s.shape()), dg = be.empty({4}), db = be.empty({4});
           be.will_hold_read_only(dyt, Precision::bf16);  // as _residual_leaky_relu says
           be.instance_norm_backward(up(be, x, s.shape()), layout, s.n, s.c, up(be, g, {4}),
                                     kInstanceNormEps, dyt, dyt, dg, db);
           const HeldReadOnly held(be, dyt);
           DVec dx, dgw, dbw;
           instance_norm_backward_ref(s, x, g, dy, kInstanceNormEps, dx, dgw, dbw);
           return checks({{"dx", be.download(dyt), dx, Precision::f32, 1e-4},
                          {"dgamma", be.download(dg), dgw, Precision::f32, 1e-4},
                          {"dbeta", be.download(db), dbw, Precision::f32, 1e-4}});
         }});
    c.push_back(plain_backward_case(name + "_chunks_offset", {2, 16, 4100, layout}, 434, 95, 105));
    // More channels than the CPU backend's channel group (16) and three voxel blocks (512) a
    // sample, the last ones short: every (sample, block, group) task of its channels-last sums.
    c.push_back(plain_backward_case(name + "_channel_groups", {2, 40, 1100, layout}, 440, -2, 3));
    c.push_back(
        {Op::instance_norm_backward, name + "_gradient", {}, [layout](Backend& be) {
           const Volume s{2, 2, 5, layout};
           const Vec x = random_vec(s.size(), 415, -2, 3), g = random_vec(2, 416, 0.5, 1.5),
                     b = random_vec(2, 417), dy = random_vec(s.size(), 418);
           Tensor dx = be.empty(s.shape()), dg = be.empty({2}), db = be.empty({2});
           be.instance_norm_backward(up(be, x, s.shape()), layout, s.n, s.c, up(be, g, {2}),
                                     kInstanceNormEps, up(be, dy, s.shape()), dx, dg, db);
           auto f = [&](const Vec& xv, const Vec& gv, const Vec& bv) {
             Tensor y = be.empty(s.shape());
             be.instance_norm(up(be, xv, s.shape()), layout, s.n, s.c, up(be, gv, {2}),
                              up(be, bv, {2}), kInstanceNormEps, y);
             return dot(dy, be.download(y));
           };
           return checks(
               {gradient_matches("dx", be.download(dx),
                                 numeric_gradient(x, [&](const Vec& v) { return f(v, g, b); })),
                gradient_matches("dgamma", be.download(dg),
                                 numeric_gradient(g, [&](const Vec& v) { return f(x, v, b); })),
                gradient_matches("dbeta", be.download(db),
                                 numeric_gradient(b, [&](const Vec& v) { return f(x, g, v); }))});
         }});
  }
  return c;
}

// outer x C_i x inner blocks: ncdhw's channel axis (outer N, inner voxels) or ndhwc's (outer
// N x voxels, inner 1).
struct AxisCase {
  const char* name;
  int64_t outer, inner;
};
// ncdhw_pieces: each sample's block longer than the CPU backend's copy piece (16,384 floats), so
// the copies split into pieces with a short last one.
constexpr AxisCase kAxisCases[] = {{"ncdhw", 2, 6}, {"ndhwc", 10, 1}, {"ncdhw_pieces", 2, 9000}};

std::vector<OpCase> axis1_cases() {
  std::vector<OpCase> c;
  for (const AxisCase& a : kAxisCases) {
    c.push_back({Op::concat_axis1, a.name, {}, [a](Backend& be) {
                   const int64_t widths[] = {1, 3, 2};
                   std::vector<Vec> xs;
                   std::vector<Tensor> ts;
                   for (int i = 0; i < 3; ++i) {
                     xs.push_back(random_vec(a.outer * widths[i] * a.inner, 420 + i));
                     ts.push_back(up(be, xs.back(), {a.outer, widths[i], a.inner}));
                   }
                   const Tensor* ptrs[] = {&ts[0], &ts[1], &ts[2]};
                   Tensor y = be.empty({a.outer, 6, a.inner});
                   // as DynUNet's decoder input (instance_norm's _residual_leaky_relu says why)
                   be.will_hold_read_only(y, Precision::bf16);
                   be.concat_axis1(ptrs, a.outer, a.inner, y);
                   const HeldReadOnly held(be, y);
                   DVec want;
                   for (int64_t o = 0; o < a.outer; ++o)
                     for (int i = 0; i < 3; ++i)
                       for (int64_t j = 0; j < widths[i] * a.inner; ++j)
                         want.push_back(xs[i][o * widths[i] * a.inner + j]);
                   return checks({{"y", be.download(y), want}});
                 }});
    c.push_back({Op::slice_axis1, a.name, {}, [a](Backend& be) {
                   const int64_t cx = 5, cy = 2, start = 2;
                   const Vec x = random_vec(a.outer * cx * a.inner, 425);
                   Tensor y = be.empty({a.outer, cy, a.inner});
                   be.slice_axis1(up(be, x, {a.outer, cx, a.inner}), a.outer, a.inner, start, y);
                   DVec want;
                   for (int64_t o = 0; o < a.outer; ++o)
                     for (int64_t j = 0; j < cy * a.inner; ++j)
                       want.push_back(x[(o * cx + start) * a.inner + j]);
                   return checks({{"y", be.download(y), want}});
                 }});
  }
  return c;
}

std::vector<OpCase> dice_cases() {
  std::vector<OpCase> c;
  for (Layout3d layout : {Layout3d::ncdhw, Layout3d::ndhwc}) {
    const std::string name = layout_name(layout);
    c.push_back({Op::soft_dice_loss, name + "_reference_slot", {}, [layout](Backend& be) {
                   const Volume s{2, 3, 300, layout};
                   const Vec z = random_vec(s.size(), 430, -4, 4);
                   Vec t = random_vec(s.size(), 431, 0, 1);
                   for (size_t i = 0; i < t.size(); ++i) t[i] = t[i] > 0.6f ? 1.f : 0.f;
                   const float smooth = 1e-5f, scale = 2.5f;
                   Tensor loss = up(be, Vec(3, 7.f), {3}), dz = be.empty(s.shape());
                   be.soft_dice_loss(up(be, z, s.shape()), up(be, t, s.shape()), layout, s.n, s.c,
                                     smooth, scale, loss, 1, dz);
                   DVec dz_want;
                   const double want = dice_ref(s, z, t, smooth, scale, dz_want);
                   return checks(
                       {{"loss", be.download(loss), {7.0, want, 7.0}, Precision::f32, 1e-5},
                        {"dlogits", be.download(dz), dz_want, Precision::f32, 1e-5}});
                 }});
    // DynUNet's one output channel over more voxels than a chunk (a short last one).
    c.push_back({Op::soft_dice_loss, name + "_chunks", {}, [layout](Backend& be) {
                   const Volume s{2, 1, 5000, layout};
                   const Vec z = random_vec(s.size(), 437, -4, 4);
                   Vec t = random_vec(s.size(), 438, 0, 1);
                   for (size_t i = 0; i < t.size(); ++i) t[i] = t[i] > 0.7f ? 1.f : 0.f;
                   const float smooth = 1e-5f, scale = 1.f;
                   Tensor loss = be.empty({1}), dz = be.empty(s.shape());
                   be.soft_dice_loss(up(be, z, s.shape()), up(be, t, s.shape()), layout, s.n, s.c,
                                     smooth, scale, loss, 0, dz);
                   DVec dz_want;
                   const double want = dice_ref(s, z, t, smooth, scale, dz_want);
                   return checks({{"loss", be.download(loss), {want}, Precision::f32, 1e-5},
                                  {"dlogits", be.download(dz), dz_want, Precision::f32, 1e-5}});
                 }});
    c.push_back(
        {Op::soft_dice_loss, name + "_gradient", {}, [layout](Backend& be) {
           const Volume s{2, 2, 4, layout};
           const Vec z = random_vec(s.size(), 435, -2, 2), t = random_vec(s.size(), 436, 0, 1);
           const float smooth = 0.5f, scale = 3.f;
           const Tensor tt = up(be, t, s.shape());
           Tensor loss = be.empty({1}), dz = be.empty(s.shape());
           be.soft_dice_loss(up(be, z, s.shape()), tt, layout, s.n, s.c, smooth, scale, loss, 0,
                             dz);
           Vec got = be.download(dz);
           for (float& v : got) v /= scale;
           const DVec numeric = numeric_gradient(z, [&](const Vec& zv) {
             Tensor l = be.empty({1}), d = be.empty(s.shape());
             be.soft_dice_loss(up(be, zv, s.shape()), tt, layout, s.n, s.c, smooth, 1.f, l, 0, d);
             return double(be.download(l)[0]);
           });
           return checks({gradient_matches("dlogits / scale", got, numeric)});
         }});
  }
  return c;
}

}  // namespace

void add_volume_cases(std::vector<OpCase>& cases) {
  for (auto* group :
       {&instance_norm_cases, &instance_norm_backward_cases, &axis1_cases, &dice_cases})
    for (OpCase& c : group()) cases.push_back(std::move(c));
}

}  // namespace sb::testing
