#include "models/enformer/positional.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sb::enformer {
namespace {

std::vector<double> linspace(double a, double b, int64_t k) {
  std::vector<double> v(static_cast<size_t>(k));
  for (int64_t i = 0; i < k; ++i) v[i] = k == 1 ? a : a + (b - a) * i / static_cast<double>(k - 1);
  return v;
}

}  // namespace

std::vector<float> positional_features(int64_t n, int64_t r) {
  if (r % 6 != 0) throw std::invalid_argument("positional features: R must be a multiple of 6");
  const int64_t k = r / 6;  // basis functions per family
  const int64_t rows = 2 * n - 1;
  const double len = static_cast<double>(n);

  std::vector<double> half_life = linspace(3.0, std::log2(len), k);
  for (double& h : half_life) h = std::pow(2.0, h);
  // Gamma family: means spread over the sequence, stddev n / (2k); computed for any n (the
  // official weights' TensorFlow table only exists for n = 1536).
  const double stddev = len / (2.0 * k);
  const std::vector<double> mean = linspace(len / k, len, k);

  std::vector<double> log_norm(static_cast<size_t>(k)), conc(log_norm.size()), rate(conc.size());
  for (int64_t j = 0; j < k; ++j) {  // lgamma outside the threads: it writes signgam
    conc[j] = (mean[j] / stddev) * (mean[j] / stddev);
    rate[j] = mean[j] / (stddev * stddev);
    log_norm[j] = std::lgamma(conc[j]) - conc[j] * std::log(rate[j]);
  }
  std::vector<float> out(static_cast<size_t>(rows * r));
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < rows; ++p) {
    std::vector<double> gamma(static_cast<size_t>(k));
    const double d = static_cast<double>(p - (n - 1));
    const double a = std::abs(d);
    float* row = out.data() + p * r;
    for (int64_t j = 0; j < k; ++j)
      row[j] = static_cast<float>(std::exp(-std::log(2.0) / half_life[j] * a));
    for (int64_t j = 0; j < k; ++j)
      row[k + j] = (std::pow(2.0, static_cast<double>(j + 1)) - 1.0) > a ? 1.f : 0.f;
    double gmax = 0;
    for (int64_t j = 0; j < k; ++j) {
      const double xlogy = (conc[j] - 1.0) == 0.0 ? 0.0 : (conc[j] - 1.0) * std::log(a);
      const double log_p = xlogy - rate[j] * a - log_norm[j];
      gamma[j] = std::exp(log_p) + 1e-8;
      gmax = std::max(gmax, gamma[j]);
    }
    for (int64_t j = 0; j < k; ++j) row[2 * k + j] = static_cast<float>(gamma[j] / gmax);
    const float sign = d > 0 ? 1.f : (d < 0 ? -1.f : 0.f);
    for (int64_t j = 0; j < 3 * k; ++j) row[3 * k + j] = sign * row[j];
  }
  return out;
}

}  // namespace sb::enformer
