#pragma once
// When to stop sampling a stage, as small plug-ins (in the manner of nvbench's stopping
// criteria). A StoppingRule combines them: a stage is finished when its quality criteria all
// hold (minimum samples AND noise target) or when any limit fires (max samples, max time).
// The rule records why it stopped, in words that go into the result's time.stop_reason:
//   "noise 0.6% <= 1.0%"            the noise target was met with enough samples
//   "max samples 50 (noise 2.3%)"   the sample limit fired first
//   "max time 60 s (noise 4.1%)"    the time limit fired first
// When quality is met and a limit fired in the same check, quality wins: the result is good.
#include <memory>
#include <string>
#include <vector>

namespace sb {

// What the criteria look at: one stage's sample times so far and the time spent measuring
// (for the runner, the ladder's elapsed measuring time: the time limit covers the ladder).
struct SampleState {
  const std::vector<double>& samples;
  double elapsed_s = 0;
};

class StoppingCriterion {
 public:
  virtual ~StoppingCriterion() = default;
  virtual std::string name() const = 0;
  virtual bool done(const SampleState& state) = 0;
  // Why done() said what it said at its last call, e.g. "noise 0.6% <= 1.0%".
  virtual std::string reason() const = 0;
};

// Relative noise of the median (statistics.h: half-width of its 95% interval / median) at or
// under the target, with at least min_samples samples.
class NoiseTarget : public StoppingCriterion {
 public:
  explicit NoiseTarget(double relative_target, size_t min_samples = 5);
  std::string name() const override { return "noise"; }
  bool done(const SampleState& state) override;
  std::string reason() const override;
  double last_noise() const { return last_noise_; }

 private:
  double target_;
  size_t min_samples_;
  double last_noise_;
  size_t last_n_ = 0;
};

class MinSamples : public StoppingCriterion {
 public:
  explicit MinSamples(size_t n) : n_(n) {}
  std::string name() const override { return "min samples"; }
  bool done(const SampleState& state) override;
  std::string reason() const override;

 private:
  size_t n_;
  size_t last_n_ = 0;
};

class MaxSamples : public StoppingCriterion {
 public:
  explicit MaxSamples(size_t n) : n_(n) {}
  std::string name() const override { return "max samples"; }
  bool done(const SampleState& state) override;
  std::string reason() const override;

 private:
  size_t n_;
};

class MaxTime : public StoppingCriterion {
 public:
  explicit MaxTime(double seconds) : seconds_(seconds) {}
  std::string name() const override { return "max time"; }
  bool done(const SampleState& state) override;
  std::string reason() const override;

 private:
  double seconds_;
};

// "0.6%", "12%": the percentage format of the stop reasons.
std::string format_percent(double fraction);

struct StoppingLimits {
  double noise_target = 0.01;
  size_t min_samples = 5;
  size_t max_samples = 100;
  double max_time_s = 60;
};

class StoppingRule {
 public:
  // The standard rule: quality = {MinSamples, NoiseTarget}, limits = {MaxSamples, MaxTime}.
  explicit StoppingRule(const StoppingLimits& limits);
  // Any combination: finished when all of `quality` hold or any of `limits` fires.
  StoppingRule(std::vector<std::unique_ptr<StoppingCriterion>> quality,
               std::vector<std::unique_ptr<StoppingCriterion>> limits);

  bool done(const SampleState& state);
  // Why the last done() said true; empty while not done.
  const std::string& stop_reason() const { return stop_reason_; }
  // Whether every quality criterion held at the last check.
  bool quality_met() const { return quality_met_; }
  // Relative noise of the median at the last check (infinity with < 2 samples).
  double noise() const { return noise_; }

 private:
  std::vector<std::unique_ptr<StoppingCriterion>> quality_;
  std::vector<std::unique_ptr<StoppingCriterion>> limits_;
  std::string stop_reason_;
  bool quality_met_ = false;
  double noise_ = 0;
};

}  // namespace sb
