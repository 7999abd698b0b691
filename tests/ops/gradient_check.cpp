#include "tests/ops/gradient_check.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace sb::testing {

namespace {

// STAGEBENCH_GRADIENT_SAMPLES=N: the coordinates a numeric gradient takes, N of them spread
// evenly from the first to the last; 0 (unset): all.
size_t gradient_samples() {
  const char* env = std::getenv("STAGEBENCH_GRADIENT_SAMPLES");
  if (env == nullptr || *env == '\0') return 0;
  const long n = std::strtol(env, nullptr, 10);
  if (n < 1) throw std::invalid_argument("STAGEBENCH_GRADIENT_SAMPLES must be at least 1");
  return static_cast<size_t>(n);
}

// The coordinates of an n-vector that a numeric gradient takes, in increasing order.
std::vector<size_t> sampled_coordinates(size_t n) {
  const size_t samples = gradient_samples();
  std::vector<size_t> out;
  if (samples == 0 || samples >= n) {
    for (size_t i = 0; i < n; ++i) out.push_back(i);
  } else {
    for (size_t k = 0; k < samples; ++k)
      out.push_back(samples == 1 ? 0 : k * (n - 1) / (samples - 1));
  }
  return out;
}

}  // namespace

DVec numeric_gradient(const Vec& x, const std::function<double(const Vec&)>& f, double rel_step) {
  DVec grad(x.size(), std::nan(""));  // left NaN: a coordinate not sampled
  Vec probe = x;
  for (const size_t i : sampled_coordinates(x.size())) {
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
  if (got.size() == numeric.size()) {  // only the coordinates numeric_gradient took
    const std::vector<size_t> taken = sampled_coordinates(numeric.size());
    for (size_t k = 0; k < taken.size(); ++k)
      got[k] = got[taken[k]], numeric[k] = numeric[taken[k]];
    got.resize(taken.size()), numeric.resize(taken.size());
  }
  Check c{std::move(what), std::move(got), std::move(numeric), Precision::f32, tol};
  c.l2 = true;
  return c;
}

}  // namespace sb::testing
