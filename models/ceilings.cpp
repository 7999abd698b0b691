#include "models/ceilings.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "models/ops/op_types.h"

namespace sb {
namespace {

template <class F>
double best_seconds(Backend& be, int reps, F&& f) {
  f();  // warm-up: program builds, first-touch pages
  be.synchronize();
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    be.synchronize();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

std::vector<float> random_values(int64_t n) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = u(rng);
  return v;
}

// The product to time, sized to the device as Google Benchmark sizes its iteration counts:
// doubling from 512 while one product takes under 100 ms, up to the cap (2048, 4096 for large).
// A GPU or a CPU core's worth of GEMM is timed at the cap as before; PoCL on a 2-core VM, where
// a 2048^3 product takes seconds, stops at 1024 instead of spending most of a tiny run's start
// on its ceilings. The run prints the n it used.
int64_t gemm_ceiling_size(Backend& be, bool large) {
  const int64_t cap = large ? 4096 : 2048;
  int64_t n = 512;
  for (; n < cap; n *= 2) {
    const auto values = random_values(n * n);
    Tensor x = be.upload(values, {n, n});
    Weight w = be.prepare_weight(values, n, n, Precision::f32);
    Tensor y = be.empty({n, n});
    if (best_seconds(be, 1, [&] { be.linear(x, w, y); }) >= 0.1) break;
  }
  return n;
}

}  // namespace

Ceilings measure_ceilings(Backend& be, bool large) {
  Ceilings c;
  c.gemm_size = gemm_ceiling_size(be, large);
  const int64_t n = c.gemm_size;
  const auto values = random_values(n * n);
  Tensor x = be.upload(values, {n, n});
  Weight w = be.prepare_weight(values, n, n, Precision::f32);
  Tensor y = be.empty({n, n});
  const double gemm_s = best_seconds(be, large ? 10 : 3, [&] { be.linear(x, w, y); });
  c.gemm_gflops = 2.0 * n * n * n / gemm_s / 1e9;

  c.stream_elements = large ? (int64_t{1} << 28) : (int64_t{1} << 25);
  const std::vector<float> ones(static_cast<size_t>(c.stream_elements), 1.f);
  Tensor a = be.upload(ones, {c.stream_elements});
  Tensor b = be.upload(ones, {c.stream_elements});
  Tensor s = be.empty({c.stream_elements});
  const double add_s = best_seconds(be, large ? 10 : 5, [&] { be.add(a, b, s); });
  c.stream_gbytes_per_s = 12.0 * static_cast<double>(c.stream_elements) / add_s / 1e9;
  return c;
}

std::vector<std::string> gemm_ceiling_precisions() {
  std::vector<std::string> names;
  for (const Precision p :
       {Precision::f32, Precision::tf32, Precision::bf16, Precision::f16, Precision::int8})
    names.emplace_back(precision_name(p));
  return names;
}

nlohmann::json to_json(const Ceilings& c) {
  return {{"gemm_fp32_gflops", c.gemm_gflops},
          {"gemm_size", c.gemm_size},
          {"stream_gbytes_per_s", c.stream_gbytes_per_s},
          {"stream_elements", c.stream_elements},
          {"method",
           "best of repeated runs of the backend's own fp32 GEMM (n^3) and elementwise "
           "add (12 bytes per element: two reads, one write)"}};
}

}  // namespace sb
