#pragma once
// When to stop sampling a stage, as small plug-ins chosen by name (in the manner of nvbench's
// stopping criteria). A StoppingRule combines them: a stage is finished when its quality
// criteria all hold or when any limit fires (max samples, max time). Quality has one definition:
// the same criteria decide when sampling may stop and, afterwards, whether the stage is valid
// (stage_report.cpp asks the rule for the conditions still unmet).
// The rule records why it stopped, in words that go into the result's time.stop_reason:
//   "noise 0.6% <= 1.0%"            the noise target was met with enough samples
//   "max samples 50 (noise 2.3%)"   the sample limit fired first
//   "max time 60 s (noise 4.1%)"    the time limit fired first
// When quality is met and a limit fired in the same check, quality wins: the result is good.
// With stable_checks N > 1, quality must hold at N checks in a row before sampling stops
// ("noise 0.6% <= 1.0%, held 10 checks"): a median interval that dips under the target once, by
// the luck of a few samples, does not end the stage. Validity is unchanged by it: it is judged
// on the final samples alone (unmet_quality).
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace sb {

// The largest budgets validate() accepts: a day of measuring per ladder, an hour of warm-up per
// stage. Real ladders use seconds to minutes; beyond these a value is a mistake (1e9 s).
inline constexpr double kMaxTimeLimitS = 86400;
inline constexpr double kWarmupLimitS = 3600;
// Lead-in runs before each sample: beyond a few, a round is mostly untimed work.
inline constexpr size_t kMaxLeadInRuns = 16;

// "45 s", "12 minutes", "3.5 hours", "31.7 years": how long a budget would take.
std::string format_duration(double seconds);

// The one set of sampling options: the runner, the CLI and sweep files all fill this struct.
struct SamplingOptions {
  double noise_target = 0.01;  // relative noise of the median (statistics.h)
  size_t min_samples = 5;
  size_t max_samples = 100;
  double max_time_s = 60;  // for all measured rounds of the ladder together
  double warmup_s = 0.5;   // per stage, at least
  size_t warmup_runs = 2;  // per stage, at least
  // Untimed runs of a stage just before each of its timed samples (docs/method.md, "Lead-in
  // runs"): the sample then follows a step of its own, as in a training loop, not another
  // stage's. 0: every sample follows the previous stage of the round.
  size_t lead_in_runs = 0;
  // Checks in a row (one a round) at which quality must hold before sampling stops; 1: the
  // first. A stopping rule, not a validity rule (see the file comment).
  size_t stable_checks = 1;
  // Quality criteria by name (criterion_names()); all must hold. "noise" includes the minimum
  // sample count.
  std::vector<std::string> quality = {"noise"};

  // Throws std::invalid_argument naming the first bad option; budgets beyond the limits above
  // are refused with the time they would take.
  void validate() const;
};

// What the criteria look at: one stage's sample times so far and the time spent measuring
// (for the runner, the ladder's elapsed measuring time: the time limit covers the ladder), and
// for paired-noise the stage's reference in the same rounds (paired_reference.h; null or
// empty when the ladder has none).
struct SampleState {
  const std::vector<double>& samples;
  double elapsed_s = 0;
  const std::vector<double>* reference = nullptr;
};

// A criterion's judgement of one state: whether it holds, in words, and (for a quality
// criterion) each condition that does not hold yet ("samples 3 < min 5").
struct CriterionVerdict {
  bool met = false;
  std::string reason;
  std::vector<std::string> unmet;
};

class StoppingCriterion {
 public:
  virtual ~StoppingCriterion() = default;
  const std::string& name() const { return name_; }
  // Non-virtual entry: every criterion is judged the same way, statelessly.
  CriterionVerdict assess(const SampleState& state) const { return do_assess(state); }

 protected:
  explicit StoppingCriterion(std::string name) : name_(std::move(name)) {}

 private:
  virtual CriterionVerdict do_assess(const SampleState& state) const = 0;
  std::string name_;
};

// Relative noise of the median (statistics.h: half-width of its 95% interval / median) at or
// under the target, with at least min_samples samples.
class NoiseTarget : public StoppingCriterion {
 public:
  explicit NoiseTarget(double relative_target, size_t min_samples = 5);

 private:
  CriterionVerdict do_assess(const SampleState& state) const override;
  double target_;
  size_t min_samples_;
};

// The same target on the stage's time relative to its reference in the same rounds: the
// relative noise of the median of sample_r / reference_r over the rounds both have, with at
// least min_samples of them (docs/method.md, "Paired noise"). Drift common to a round cancels,
// so it states how well the stage is known against its reference, not its absolute time.
class PairedNoiseTarget : public StoppingCriterion {
 public:
  explicit PairedNoiseTarget(double relative_target, size_t min_samples = 5);

 private:
  CriterionVerdict do_assess(const SampleState& state) const override;
  double target_;
  size_t min_samples_;
};

class MinSamples : public StoppingCriterion {
 public:
  explicit MinSamples(size_t n) : StoppingCriterion("min-samples"), n_(n) {}

 private:
  CriterionVerdict do_assess(const SampleState& state) const override;
  size_t n_;
};

class MaxSamples : public StoppingCriterion {
 public:
  explicit MaxSamples(size_t n) : StoppingCriterion("max-samples"), n_(n) {}

 private:
  CriterionVerdict do_assess(const SampleState& state) const override;
  size_t n_;
};

class MaxTime : public StoppingCriterion {
 public:
  explicit MaxTime(double seconds) : StoppingCriterion("max-time"), seconds_(seconds) {}

 private:
  CriterionVerdict do_assess(const SampleState& state) const override;
  double seconds_;
};

// The criteria a name can choose: "noise", "paired-noise", "min-samples", "max-samples",
// "max-time".
std::vector<std::string> criterion_names();
// Throws std::invalid_argument for an unknown name, listing the known ones.
std::unique_ptr<StoppingCriterion> make_criterion(const std::string& name,
                                                  const SamplingOptions& options);

// "0.6%", "12%": the percentage format of the stop reasons.
std::string format_percent(double fraction);

class StoppingRule {
 public:
  // quality = the criteria options.quality names; limits = {max-samples, max-time}.
  explicit StoppingRule(const SamplingOptions& options);
  // Any combination: finished when all of `quality` hold at `stable_checks` checks in a row, or
  // when any of `limits` fires.
  StoppingRule(std::vector<std::unique_ptr<StoppingCriterion>> quality,
               std::vector<std::unique_ptr<StoppingCriterion>> limits, size_t stable_checks = 1);

  bool done(const SampleState& state);
  // Why the last done() said true; empty while not done.
  const std::string& stop_reason() const { return stop_reason_; }
  // Whether every quality criterion held at the last check.
  bool quality_met() const { return quality_met_; }
  // The quality conditions that do not hold for `state`: why a measured stage is invalid.
  std::vector<std::string> unmet_quality(const SampleState& state) const;

 private:
  std::vector<std::unique_ptr<StoppingCriterion>> quality_;
  std::vector<std::unique_ptr<StoppingCriterion>> limits_;
  size_t stable_checks_ = 1;
  size_t held_ = 0;  // checks in a row, up to the last, at which quality held
  std::string stop_reason_;
  bool quality_met_ = false;
};

}  // namespace sb
