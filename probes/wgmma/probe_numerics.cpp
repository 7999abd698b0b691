// The probe's host-side numbers: f16 bits, random inputs, and results checked against a double
// reference (wgmma_probe.cpp; docs/wgmma.md). No OpenCL here.
#include "probes/wgmma/probe_numerics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

namespace probe {

uint16_t to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const int exp = static_cast<int>((x >> 23) & 0xFF) - 127 + 15;
  uint32_t mant = x & 0x7FFFFFu;
  if (exp <= 0) return static_cast<uint16_t>(sign);  // flush tiny values (|x| < 2^-14)
  uint32_t h = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rest = mant & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(h);
}

float from_half(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1F, mant = h & 0x3FFu;
  uint32_t x;
  if (exp == 0) {
    x = sign;  // zero (no subnormals are produced by to_half)
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

std::vector<uint16_t> random_halves(size_t n, uint64_t seed) {
  std::vector<uint16_t> v(n);
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto& e : v) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    e = to_half(static_cast<float>(static_cast<int64_t>(s >> 40) - (1 << 23)) / (1 << 23));
  }
  return v;
}

double ref_entry(const std::vector<uint16_t>& a, const std::vector<uint16_t>& b, int K, int i,
                 int j) {
  double s = 0;
  for (int k = 0; k < K; ++k)
    s += static_cast<double>(from_half(a[static_cast<size_t>(i) * K + k])) *
         from_half(b[static_cast<size_t>(j) * K + k]);
  return s;
}

Check check_against_ref(const std::vector<float>& got, const std::vector<uint16_t>& a,
                        const std::vector<uint16_t>& b, int M, int N, int K,
                        const std::vector<std::pair<int, int>>& pairs) {
  Check c;
  double num = 0, den = 0;
  auto one = [&](int i, int j) {
    const double r = ref_entry(a, b, K, i, j), g = got[static_cast<size_t>(i) * N + j];
    if (!std::isfinite(g)) ++c.nonfinite;
    num += (g - r) * (g - r);
    den += r * r;
    c.max_abs = std::max(c.max_abs, std::fabs(g - r));
    ++c.compared;
  };
  if (pairs.empty()) {
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) one(i, j);
  } else {
    for (auto [i, j] : pairs) one(i, j);
  }
  c.rel_l2 = std::sqrt(num / std::max(den, 1e-300));
  if (!std::isfinite(c.rel_l2)) c.rel_l2 = INFINITY;
  return c;
}

Check check_against(const std::vector<float>& got, const std::vector<float>& ref) {
  Check c;
  double num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) ++c.nonfinite;
    const double d = static_cast<double>(got[i]) - ref[i];
    num += d * d;
    den += static_cast<double>(ref[i]) * ref[i];
    c.max_abs = std::max(c.max_abs, std::fabs(d));
  }
  c.compared = got.size();
  c.rel_l2 = std::sqrt(num / std::max(den, 1e-300));
  if (!std::isfinite(c.rel_l2)) c.rel_l2 = INFINITY;
  return c;
}

}  // namespace probe
