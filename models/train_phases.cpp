#include "models/train_phases.h"

#include <algorithm>

#include "schema/summaries.h"

namespace sb {

double ms_since(StepClock::time_point t0) {
  return std::chrono::duration<double, std::milli>(StepClock::now() - t0).count();
}

double median_ms(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void StepPhases::end(const char* phase, double PhaseTimes::*slot) {
  if (times_) {
    be_.synchronize();
    times_->*slot += ms_since(t0_);
    t0_ = StepClock::now();
  }
  marks_.end(phase);
}

void StepPhases::end_part(const char* phase, double PhaseTimes::*slot, double PhaseTimes::*part) {
  const double before = times_ ? times_->*slot : 0;
  end(phase, slot);
  if (times_) times_->*part += times_->*slot - before;
}

void write_step_phases(nlohmann::json& summaries, int steps,
                       const std::function<void(PhaseTimes&)>& step, bool with_samples) {
  std::vector<double> data, h2d, fwd, loss, bwd, opt;
  for (int i = 0; i < steps; ++i) {
    PhaseTimes t;
    step(t);
    data.push_back(t.data), h2d.push_back(t.h2d), fwd.push_back(t.forward);
    loss.push_back(t.loss), bwd.push_back(t.backward), opt.push_back(t.optimizer);
  }
  summaries[summary::kPhasesMs.key] = summary::by_phase(
      median_ms(data), median_ms(h2d), median_ms(fwd), median_ms(bwd), median_ms(opt));
  if (!with_samples) return;
  // Every step's phases, for the claims about one phase (docs/method.md#phase-claims).
  summaries[summary::kPhaseSamplesMs.key] = summary::by_phase(data, h2d, fwd, bwd, opt);
  summaries[summary::kPhaseSamplesMs.key][summary::kLossPhase] = loss;
}

void write_memory_split(nlohmann::json& summaries, const MemorySplit& m) {
  summaries[summary::kMemorySplitBytes.key] =
      summary::by_role(m.parameters, m.gradients, m.optimizer_state, m.activations);
}

}  // namespace sb
