#pragma once
// What the training models (DeepFM, DynUNet) measure of a step beyond the runner's samples,
// written once for both: the step's phases, each ended with a synchronization when the step is
// timed phase by phase, and the summaries they make (schema/summaries.h's names): each phase's
// samples and median over a few more steps, and the trainer's memory by role.
#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "instrument/host_ranges.h"
#include "models/ops/backend.h"

namespace sb {

// The phases of one step in milliseconds; `loss` is the losses' part of forward (DeepFM's claim
// about them), counted in forward too.
struct PhaseTimes {
  double data = 0, h2d = 0, forward = 0, backward = 0, optimizer = 0;
  double loss = 0;
};

// Bytes a trainer holds between steps, by role.
struct MemorySplit {
  uint64_t parameters = 0, gradients = 0, optimizer_state = 0, activations = 0;
};

using StepClock = std::chrono::steady_clock;
double ms_since(StepClock::time_point t0);
double median_ms(std::vector<double> v);

// The phase boundaries of one step: end(name, slot) closes the phase that began at the last
// end. Every phase becomes a host range of the timeline (instrument/host_ranges.h); when the
// step is timed phase by phase (`times` given), the device is synchronized first, so that the
// phase's device work is inside it, and its time is added to the slot. The timed steps pass no
// `times` and run exactly the ops they would without this.
class StepPhases {
 public:
  StepPhases(Backend& be, PhaseTimes* times) : be_(be), times_(times), t0_(StepClock::now()) {}
  void end(const char* phase, double PhaseTimes::*slot);
  // A part of the phase `slot` counted again in `part` (DeepFM's losses inside forward).
  void end_part(const char* phase, double PhaseTimes::*slot, double PhaseTimes::*part);

 private:
  Backend& be_;
  PhaseTimes* times_;
  StepClock::time_point t0_;
  PhaseMarks marks_;
};

// Runs `steps` more steps through `step` and writes phases_ms, each phase's median, into
// `summaries`; with `with_samples`, also phase_samples_ms, every step's phases with the loss part.
void write_step_phases(nlohmann::json& summaries, int steps,
                       const std::function<void(PhaseTimes&)>& step, bool with_samples);
// memory_split_bytes.
void write_memory_split(nlohmann::json& summaries, const MemorySplit& m);

}  // namespace sb
