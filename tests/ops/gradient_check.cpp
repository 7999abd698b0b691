#include "tests/ops/gradient_check.h"

#include <algorithm>
#include <cmath>

namespace sb::testing {

DVec numeric_gradient(const Vec& x, const std::function<double(const Vec&)>& f, double rel_step) {
  DVec grad(x.size());
  Vec probe = x;
  for (size_t i = 0; i < x.size(); ++i) {
    const float h = static_cast<float>(rel_step * std::max(1.0, std::fabs(double(x[i]))));
    probe[i] = x[i] + h;
    const double up = f(probe);
    const float hi = probe[i];  // the step as the f32 input holds it
    probe[i] = x[i] - h;
    const double down = f(probe);
    const float lo = probe[i];
    probe[i] = x[i];
    grad[i] = (up - down) / (double(hi) - double(lo));
  }
  return grad;
}

double dot(const Vec& w, const Vec& y) {
  double s = 0;
  for (size_t i = 0; i < w.size() && i < y.size(); ++i) s += double(w[i]) * y[i];
  return s;
}

Vec away_from_zero(Vec x, float margin) {
  for (float& v : x)
    if (std::fabs(v) < margin) v = v < 0 ? -margin : margin;
  return x;
}

Check gradient_matches(std::string what, Vec got, DVec numeric, double tol) {
  Check c{std::move(what), std::move(got), std::move(numeric), Precision::f32, tol};
  c.l2 = true;
  return c;
}

}  // namespace sb::testing
