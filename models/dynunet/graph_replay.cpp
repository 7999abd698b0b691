#include "models/dynunet/graph_replay.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "models/train_phases.h"

namespace sb::dynunet {

PassTimes time_passes(Backend& be, const std::function<void()>& pass, const PassBounds& bounds) {
  pass();
  be.synchronize();
  PassTimes t;
  const StepClock::time_point start = StepClock::now();
  while (static_cast<int>(t.ms.size()) < bounds.max_reps &&
         (static_cast<int>(t.ms.size()) < bounds.min_reps || ms_since(start) < bounds.min_ms)) {
    const StepClock::time_point t0 = StepClock::now();
    pass();
    t.host_ms.push_back(ms_since(t0));
    be.synchronize();
    t.ms.push_back(ms_since(t0));
  }
  return t;
}

nlohmann::json compare_logits(const std::vector<float>& got, const std::vector<float>& want,
                              const Tolerance& tol) {
  if (got.size() != want.size() || got.empty())
    return {{"error", "logits of " + std::to_string(got.size()) + " values against " +
                          std::to_string(want.size())}};
  double dot = 0, gg = 0, ww = 0, diff2 = 0, max_abs = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i], d = g - w;
    dot += g * w, gg += g * g, ww += w * w, diff2 += d * d;
    max_abs = std::max(max_abs, std::abs(d));
  }
  const double cosine = gg > 0 && ww > 0 ? dot / std::sqrt(gg * ww) : (gg == ww ? 1.0 : 0.0);
  const double rel_l2 = ww > 0 ? std::sqrt(diff2 / ww) : std::sqrt(diff2);
  const bool bits = std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0;
  return {{"cosine", cosine},
          {"rel_l2", rel_l2},
          {"max_abs_diff", max_abs},
          {"bits_equal", bits},
          {"within_tolerance", cosine >= tol.min_cosine && rel_l2 <= tol.max_rel_l2()}};
}

}  // namespace sb::dynunet
