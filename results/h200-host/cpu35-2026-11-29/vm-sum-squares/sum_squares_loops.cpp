#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <random>
#include "models/ops/cpu/parallel.h"
using namespace sb::cpu;
constexpr int64_t kSumBlock = 4096;
constexpr int64_t kSumLanes = 16;
template <class Term> __attribute__((noinline)) double old_sum(int64_t n, int64_t cost, Term&& term) {
  const int64_t blocks = (n + kSumBlock - 1) / kSumBlock;
  std::vector<double> partial(static_cast<size_t>(blocks), 0.0);
  parallel_for(blocks, kSumBlock * cost, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      double s = 0;
      for (int64_t i = b * kSumBlock, end = std::min(n, i + kSumBlock); i < end; ++i) s += term(i);
      partial[b] = s;
    }
  });
  double total = 0; for (double p : partial) total += p; return total;
}
template <class Term> __attribute__((noinline)) double new_sum(int64_t n, int64_t cost, Term&& term) {
  const int64_t blocks = (n + kSumBlock - 1) / kSumBlock;
  std::vector<double> partial(static_cast<size_t>(blocks), 0.0);
  parallel_for(blocks, kSumBlock * cost, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      double lane[kSumLanes] = {};
      const int64_t begin = b * kSumBlock, end = std::min(n, begin + kSumBlock);
      int64_t i = begin;
      for (; i + kSumLanes <= end; i += kSumLanes)
        for (int64_t l = 0; l < kSumLanes; ++l) lane[l] += term(i + l);
      for (; i < end; ++i) lane[(i - begin) % kSumLanes] += term(i);
      for (int64_t width = kSumLanes / 2; width > 0; width /= 2)
        for (int64_t l = 0; l < width; ++l) lane[l] += lane[l + width];
      partial[b] = lane[0];
    }
  });
  double total = 0; for (double p : partial) total += p; return total;
}
int main() {
  const int64_t n = 2343376; std::vector<float> x(n); std::mt19937 g(1); std::normal_distribution<float> d; for (auto& v : x) v = d(g);
  const float* xp = x.data();
  double a = 0, b = 0;
  auto time = [&](auto f, double& out) { double best = 1e9; for (int r = 0; r < 100; ++r) { auto t0 = std::chrono::steady_clock::now(); out = f(n, 1, [&](int64_t i) { const double v = xp[i]; return v * v; }); best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()); } return best * 1e3; };
  for (int rep = 0; rep < 3; ++rep) { double to = time([](auto... a) { return old_sum(a...); }, a); double tn = time([](auto... a) { return new_sum(a...); }, b); printf("old %.3f ms  new %.3f ms  (min of 100, %lld elements)\n", to, tn, (long long)n); }
  printf("sums %.17g %.17g rel diff %.2e\n", a, b, (a - b) / a);
}
