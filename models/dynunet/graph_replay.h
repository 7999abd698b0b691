#pragma once
// DynUNet's graph-replay stage (issue 27, item 4): the inference forward recorded once as a
// launch list (models/ops/launch_list.h) and replayed, checked and timed beside the same stage's
// eager forward. The training step stays eager: it reads the loss back, which no list can hold.
#include <functional>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "contract/workload.h"
#include "models/ops/backend.h"

namespace sb::dynunet {

// Times `pass` (queues one forward and returns) followed by a synchronize: a warm-up, then at
// least min_reps passes and min_ms, at most max_reps. Returns each pass's device-complete time
// in ms; host_ms, when given, gets how long each pass took to return (its host work).
struct PassTimes {
  std::vector<double> ms, host_ms;
};
struct PassBounds {
  int min_reps = 5, max_reps = 50;
  double min_ms = 1000;
};
PassTimes time_passes(Backend& be, const std::function<void()>& pass, const PassBounds& bounds);

// The replay's check against another run's logits (the same layout): cosine, relative L2 and
// largest absolute difference, within `tol` or not, and whether every bit matched.
nlohmann::json compare_logits(const std::vector<float>& got, const std::vector<float>& want,
                              const Tolerance& tol);

}  // namespace sb::dynunet
