// Op cases: the losses (BCE with logits, cross-entropy with class weights and label smoothing)
// and AdamW against double references; every loss also against central finite differences of
// itself run on the same backend (gradient_check.h). Part of the training group
// (cases_training.cpp), which adds them in its order.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "models/io/half.h"
#include "tests/ops/gradient_check.h"
#include "tests/ops/op_case.h"
#include "tests/ops/test_env.h"
#ifdef STAGEBENCH_HAVE_OPENCL
#include "models/ops/opencl/opencl_backend_impl.h"
#endif

namespace sb::testing {
namespace {

// --- losses ------------------------------------------------------------------------------

// mean of max(z, 0) - z t + log1p(exp(-|z|)), and its gradient times scale.
double bce_ref(const Vec& z, const Vec& t, double scale, DVec& dz) {
  double sum = 0;
  dz.assign(z.size(), 0);
  for (size_t i = 0; i < z.size(); ++i) {
    sum +=
        std::max(double(z[i]), 0.0) - double(z[i]) * t[i] + std::log1p(std::exp(-std::fabs(z[i])));
    dz[i] = scale * (1 / (1 + std::exp(-double(z[i]))) - t[i]) / z.size();
  }
  return sum / z.size();
}

// torch.nn.functional.cross_entropy(weight=w, label_smoothing=eps, reduction='mean'), written
// out from its definition (log-softmax), and its gradient times scale.
double cross_entropy_ref(const Vec& z, const std::vector<int32_t>& y, const Vec& w, double eps,
                         int64_t c, double scale, DVec& dz) {
  const int64_t rows = static_cast<int64_t>(z.size()) / c;
  auto wt = [&](int64_t j) { return w.empty() ? 1.0 : double(w[j]); };
  double num = 0, den = 0, sum_w = 0;
  for (int64_t j = 0; j < c; ++j) sum_w += wt(j);
  DVec p(z.size());
  for (int64_t r = 0; r < rows; ++r) {
    double mx = -1e300, s = 0;
    for (int64_t j = 0; j < c; ++j) mx = std::max(mx, double(z[r * c + j]));
    for (int64_t j = 0; j < c; ++j) s += std::exp(z[r * c + j] - mx);
    const double lse = mx + std::log(s);
    num += (1 - eps) * wt(y[r]) * (lse - z[r * c + y[r]]);
    for (int64_t j = 0; j < c; ++j) {
      num += eps / c * wt(j) * (lse - z[r * c + j]);
      p[r * c + j] = std::exp(z[r * c + j] - lse);
    }
    den += wt(y[r]);
  }
  dz.assign(z.size(), 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < c; ++j) {
      const double wy = (1 - eps) * wt(y[r]);
      dz[r * c + j] =
          scale / den *
          (p[r * c + j] * (wy + eps / c * sum_w) - (j == y[r] ? wy : 0) - eps / c * wt(j));
    }
  return num / den;
}

}  // namespace

std::vector<OpCase> loss_cases() {
  std::vector<OpCase> c;
  c.push_back({Op::bce_with_logits, "loss_gradient_and_slot", {}, [](Backend& be) {
                 const int64_t rows = 4, ch = 6, n = rows * ch;
                 const Vec z = random_vec(n, 270, -3, 3);
                 Vec t = random_vec(n, 271, 0, 1);
                 for (int64_t i = 0; i < n; i += 3) t[i] = i % 2 ? 1.f : 0.f;  // hard labels too
                 const float scale = 2.5f;
                 Tensor loss = up(be, Vec(3, 7.f), {3}), dz = be.empty({rows, ch});
                 const Tensor tt = up(be, t, {rows, ch});
                 be.bce_with_logits(up(be, z, {rows, ch}), tt, scale, loss, 1, dz);
                 DVec dz_want;
                 const double want = bce_ref(z, t, scale, dz_want);
                 const Vec got_dz = be.download(dz);
                 const DVec numeric = numeric_gradient(z, [&](const Vec& zv) {
                   Tensor l = be.empty({1}), d = be.empty({rows, ch});
                   be.bce_with_logits(up(be, zv, {rows, ch}), tt, 1.f, l, 0, d);
                   return double(be.download(l)[0]);
                 });
                 return checks({{"loss", be.download(loss), {7.0, want, 7.0}},
                                {"dlogits", got_dz, dz_want},
                                gradient_matches(
                                    "dlogits / scale",
                                    [&] {
                                      Vec v = got_dz;
                                      for (float& x : v) x /= scale;
                                      return v;
                                    }(),
                                    numeric)});
               }});
  struct Ce {
    const char* name;
    bool weights;
    float smoothing, scale;
    float range;
  };
  for (const Ce& ce :
       {Ce{"plain", false, 0.f, 1.f, 2.f}, Ce{"weights_smoothing", true, 0.1f, 0.5f, 2.f},
        Ce{"smoothing_large_logits", false, 0.2f, 1.f, 60.f}}) {
    c.push_back(
        {Op::cross_entropy, ce.name, {}, [ce](Backend& be) {
           const int64_t rows = 5, ch = 4;
           const Vec z = random_vec(rows * ch, 280, -ce.range, ce.range);
           const std::vector<int32_t> y{2, 0, 3, 3, 1};
           const Vec w = ce.weights ? random_vec(ch, 281, 0.5, 2) : Vec{};
           // Labels written into an existing tensor: write_ids records their range.
           Tensor labels = be.empty({rows}, DType::i32);
           be.write_ids(y, labels);
           const Tensor wt = ce.weights ? up(be, w, {ch}) : Tensor();
           const Tensor* wp = ce.weights ? &wt : nullptr;
           Tensor loss = up(be, Vec(2, 7.f), {2}), dz = be.empty({rows, ch});
           be.cross_entropy(up(be, z, {rows, ch}), labels, wp, ce.smoothing, ce.scale, loss, 1, dz);
           DVec dz_want;
           const double want = cross_entropy_ref(z, y, w, ce.smoothing, ch, ce.scale, dz_want);
           const Vec got_dz = be.download(dz);
           std::vector<Check> out = {{"loss", be.download(loss), {7.0, want}},
                                     {"dlogits", got_dz, dz_want}};
           if (ce.range < 10) {  // finite differences need logits of moderate size
             const DVec numeric = numeric_gradient(z, [&](const Vec& zv) {
               Tensor l = be.empty({1}), d = be.empty({rows, ch});
               be.cross_entropy(up(be, zv, {rows, ch}), labels, wp, ce.smoothing, 1.f, l, 0, d);
               return double(be.download(l)[0]);
             });
             Vec per_unit = got_dz;
             for (float& x : per_unit) x /= ce.scale;
             out.push_back(gradient_matches("dlogits / scale", per_unit, numeric));
           }
           return out;
         }});
  }
  c.push_back(
      {Op::sum_squares, "slot_empty_and_non_finite", {}, [](Backend& be) {
         const Vec x = random_vec(5000, 290, -2, 2);
         double want = 0;
         for (float v : x) want += double(v) * v;
         Tensor out = up(be, Vec(4, 7.f), {4});
         be.sum_squares(up(be, x, {50, 100}), out, 2);
         be.sum_squares(be.empty({0, 3}), out, 0);
         Vec bad = random_vec(10, 291);
         bad[4] = INFINITY;
         be.sum_squares(up(be, bad, {10}), out, 3);
         const Vec got = be.download(out);
         EXPECT_TRUE(std::isinf(got[3]));
         return checks({{"out[0..2]", Vec(got.begin(), got.begin() + 3), {0.0, 7.0, want}}});
       }});
  return c;
}

// --- AdamW -------------------------------------------------------------------------------

// One AdamW step in double, in place.
void adamw_ref(DVec& p, DVec& m, DVec& v, const Vec& g, const AdamWStep& st) {
  const double b1 = st.beta1, b2 = st.beta2, lr = st.lr, t = double(st.step);
  for (size_t i = 0; i < p.size(); ++i) {
    const double gi = double(g[i]) * st.grad_scale;
    m[i] = b1 * m[i] + (1 - b1) * gi;
    v[i] = b2 * v[i] + (1 - b2) * gi * gi;
    const double mhat = m[i] / (1 - std::pow(b1, t));
    const double vhat = v[i] / (1 - std::pow(b2, t));
    p[i] =
        p[i] * (1 - lr * double(st.weight_decay)) - lr * mhat / (std::sqrt(vhat) + double(st.eps));
  }
}

#ifdef STAGEBENCH_HAVE_OPENCL
// The OpenCL backend's f16 images of held parameters (bf16_copies.cpp): the optimizer step that
// a notice names writes, beside the fp32 values, the f16 image of each range an f16 product read
// under the last hold (adamw_f16_image). The wgmma products that read the images exist on NVIDIA
// alone, so the case forces the images on and reads the image itself: on PoCL and under
// Oclgrind's pass (scripts/oclgrind-ci.sh) the kernel is checked as the others are.
std::string needs_f16_images(Backend& be) {
  if (dynamic_cast<OpenCLBackend*>(&be) == nullptr) return "f16 images are the OpenCL backend's";
  if (env_is("STAGEBENCH_F16_IMAGES", "off")) return "STAGEBENCH_F16_IMAGES=off";
  if (env_is("STAGEBENCH_CONV_BF16_REUSE", "off"))
    return "STAGEBENCH_CONV_BF16_REUSE=off (no holds)";
  return "";
}

std::vector<Check> f16_image_of_held_range(Backend& be) {
  auto& cl = dynamic_cast<OpenCLBackend&>(be);
  struct Anywhere {
    explicit Anywhere(OpenCLBackend& b) : b(b) { b.write_f16_images_anywhere(true); }
    ~Anywhere() { b.write_f16_images_anywhere(false); }
    OpenCLBackend& b;
  } const anywhere(cl);
  const std::vector<std::vector<int64_t>> shapes{{3, 5}, {24, 40}, {7}};
  std::vector<Tensor> p, g, m, v;
  Tensor fp = be.flat_parts(shapes, p), fg = be.flat_parts(shapes, g);
  Tensor fm = be.flat_parts(shapes, m), fv = be.flat_parts(shapes, v);
  const Tensor& w = p[1];
  const Vec w0 = random_vec(w.numel(), 341, -4, 4), gw = random_vec(w.numel(), 342);
  for (size_t i = 0; i < shapes.size(); ++i) {
    be.write(i == 1 ? w0 : random_vec(p[i].numel(), 340), p[i]);
    be.write(i == 1 ? gw : random_vec(g[i].numel(), 343), g[i]);
  }
  // Whole writes after the parts' (adamw_over_parts says why: Oclgrind's partial host writes).
  for (Tensor* f : {&fp, &fg}) be.write(be.download(*f), *f);
  AdamWStep s;
  s.lr = 0.05f, s.weight_decay = 0.1f;
  std::vector<Check> out;
  DVec pw = widen(w0), mw(w0.size(), 0.0), vw(w0.size(), 0.0);
  for (int step = 1; step <= 2; ++step) {  // the first read wants the range; the next step writes
    s.step = step;
    be.will_hold_read_only(fp, Precision::f16);
    be.adamw(fp, fg, fm, fv, s);
    adamw_ref(pw, mw, vw, gw, s);
    const HeldReadOnly held(be, fp);
    const Tensor image = cl.held_f16_image(w, 0, w.numel());
    EXPECT_EQ(image.defined(), step == 2) << "the image after step " << step;
    if (!image.defined()) continue;
    const Vec fp32 = be.download(w);
    DVec halves(fp32.size());
    for (size_t i = 0; i < fp32.size(); ++i) halves[i] = fp16_to_fp32(fp32_to_fp16(fp32[i]));
    out.push_back({"param after two steps", fp32, pw});
    out.push_back({"f16 image (the param's values rounded)", be.download(image), halves,
                   Precision::f32, 1e-12});
  }
  if (out.empty()) out.push_back({"f16 image written by step 2", {0.f}, {1.0}});
  return out;
}
#endif

std::vector<OpCase> adamw_cases() {
  std::vector<OpCase> c;
  c.push_back(
      {Op::adamw, "two_steps", {}, [](Backend& be) {
         const int64_t n = 300;
         const Vec p0 = random_vec(n, 300), m0 = random_vec(n, 301, -0.1, 0.1),
                   v0 = random_vec(n, 302, 0.01, 0.1), g1 = random_vec(n, 303),
                   g2 = random_vec(n, 304);
         AdamWStep s;
         s.lr = 1e-2f, s.beta1 = 0.8f, s.beta2 = 0.95f, s.eps = 1e-6f, s.weight_decay = 0.1f;
         s.grad_scale = 0.5f, s.step = 3;
         Tensor p = up(be, p0, {n}), m = up(be, m0, {n}), v = up(be, v0, {n});
         be.adamw(p, up(be, g1, {n}), m, v, s);
         AdamWStep s2 = s;
         s2.step = 4;
         be.adamw(p, up(be, g2, {n}), m, v, s2);
         DVec pw = widen(p0), mw = widen(m0), vw = widen(v0);
         adamw_ref(pw, mw, vw, g1, s);
         adamw_ref(pw, mw, vw, g2, s2);
         return checks(
             {{"param", be.download(p), pw}, {"m", be.download(m), mw}, {"v", be.download(v), vw}});
       }});
  // AdamW over one flat buffer updates every part as AdamW over each part would, and the
  // padding between the parts stays zero.
  c.push_back({Op::flat_parts, "adamw_over_parts", {}, [](Backend& be) {
                 const std::vector<std::vector<int64_t>> shapes{{3, 5}, {7}, {2, 1, 3}};
                 std::vector<Tensor> p, g, m, v;
                 Tensor fp = be.flat_parts(shapes, p), fg = be.flat_parts(shapes, g);
                 Tensor fm = be.flat_parts(shapes, m), fv = be.flat_parts(shapes, v);
                 AdamWStep s;
                 s.weight_decay = 0.1f, s.lr = 0.05f;
                 std::vector<Check> out;
                 std::vector<Vec> p0, g0;
                 for (size_t i = 0; i < shapes.size(); ++i) {
                   p0.push_back(random_vec(p[i].numel(), 320 + int(i)));
                   g0.push_back(random_vec(p[i].numel(), 330 + int(i)));
                   be.write(p0[i], p[i]);
                   be.write(g0[i], g[i]);
                 }
                 be.adamw(fp, fg, fm, fv, s);
                 double total = 0;
                 for (size_t i = 0; i < shapes.size(); ++i) {
                   Tensor q = up(be, p0[i], shapes[i]), mq = be.empty(shapes[i]),
                          vq = be.empty(shapes[i]);
                   be.fill(mq, 0.f), be.fill(vq, 0.f);
                   be.adamw(q, up(be, g0[i], shapes[i]), mq, vq, s);
                   const Vec want = be.download(q);
                   out.push_back({"part " + std::to_string(i), be.download(p[i]), widen(want)});
                   for (float x : want) total += double(x) * x;
                 }
                 Tensor sq = be.empty({1});
                 be.sum_squares(fp, sq, 0);
                 out.push_back({"sum of squares (padding zero)", be.download(sq), DVec{total},
                                Precision::f32, 1e-5});
                 // Oclgrind 21.10 keeps a buffer written through a part as uninitialized past
                 // that write for the buffer's life, dropping later kernels' stores there, and
                 // the pool hands fp and fg to later cases (instance_norm_backward's partial sums
                 // were reported so: tests/ops/oclgrind/partial_host_write.c). A whole write
                 // leaves them as any other buffer; same values on every backend.
                 for (Tensor* f : {&fp, &fg}) be.write(be.download(*f), *f);
                 return out;
               }});
#ifdef STAGEBENCH_HAVE_OPENCL
  c.push_back({Op::adamw, "f16_image_of_held_range", needs_f16_images, f16_image_of_held_range});
#endif
  return c;
}

}  // namespace sb::testing
