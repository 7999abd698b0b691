// Which GEMMs judge a CLBlast tuning, and the verdict on their timings (clblast_tuning.h).
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <stdexcept>

#include "models/ops/opencl/clblast_tuning.h"

namespace sb {

std::string TuningGemm::label() const {
  std::string s = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  return batch > 1 ? s + " x" + std::to_string(batch) : s;
}

std::vector<TuningGemm> tuning_gemms(size_t n) {
  // 64 is the head size of both transformers; 8 heads keep the batched products near the
  // square's work, so no one shape dominates the total.
  const size_t head = std::min<size_t>(64, n);
  return {{n, n, n, 1}, {4 * n, n / 2, n, 1}, {n, n, head, 8}, {n, head, n, 8}};
}

std::string tuning_rejection(const std::vector<TuningGemm>& gemms,
                             const std::vector<double>& before, const std::vector<double>& after,
                             double tolerance) {
  if (before.size() != gemms.size() || after.size() != gemms.size())
    throw std::invalid_argument("tuning verdict: one time per GEMM before and after");
  for (size_t i = 0; i < gemms.size(); ++i) {
    if (after[i] > before[i] * (1 + tolerance)) {
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, "%.2fx", after[i] / before[i]);
      return "slower on " + gemms[i].label() + " (" + ratio + " the time)";
    }
  }
  const double b = std::accumulate(before.begin(), before.end(), 0.0);
  const double a = std::accumulate(after.begin(), after.end(), 0.0);
  return a < b ? "" : "no faster than CLBlast's defaults";
}

}  // namespace sb
