#pragma once
// The probe's host-side numbers (probe_numerics.cpp): f16 bits, random inputs, and results checked
// against a double reference.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace probe {

// f32 -> f16 bits, round to nearest even (inputs here are normal and in range).
uint16_t to_half(float f);
float from_half(uint16_t h);
// Random halves in [-1, 1), fresh per call (the seed advances).
std::vector<uint16_t> random_halves(size_t n, uint64_t seed);
// Entry (i, j) of A B^T in double, A and B row-major with K columns of halves.
double ref_entry(const std::vector<uint16_t>& a, const std::vector<uint16_t>& b, int K, int i,
                 int j);

struct Check {
  double rel_l2 = 0, max_abs = 0;
  size_t nonfinite = 0, compared = 0;
  bool pass() const { return nonfinite == 0 && rel_l2 < 1e-4 && compared > 0; }
  std::string text() const {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s rel_l2 %.3g max_abs %.3g nonfinite %zu of %zu",
                  pass() ? "PASS" : "FAIL", rel_l2, max_abs, nonfinite, compared);
    return buf;
  }
};

// got (row-major M x N) against the double reference on `pairs` entries (all when empty).
Check check_against_ref(const std::vector<float>& got, const std::vector<uint16_t>& a,
                        const std::vector<uint16_t>& b, int M, int N, int K,
                        const std::vector<std::pair<int, int>>& pairs);
Check check_against(const std::vector<float>& got, const std::vector<float>& ref);

}  // namespace probe
