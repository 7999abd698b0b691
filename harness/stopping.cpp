#include "harness/stopping.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "harness/statistics.h"

namespace sb {

std::string format_percent(double fraction) {
  if (!std::isfinite(fraction)) return "inf%";
  const double pct = fraction * 100;
  char buf[32];
  // One decimal below 10% (where the targets live), whole numbers above.
  std::snprintf(buf, sizeof buf, pct < 10 ? "%.1f%%" : "%.0f%%", pct);
  return buf;
}

namespace {

std::string format_count_or_seconds(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

NoiseTarget::NoiseTarget(double relative_target, size_t min_samples)
    : target_(relative_target),
      min_samples_(min_samples),
      last_noise_(std::numeric_limits<double>::infinity()) {
  if (!(relative_target > 0)) throw std::invalid_argument("noise target must be > 0");
}

bool NoiseTarget::done(const SampleState& state) {
  last_n_ = state.samples.size();
  last_noise_ = relative_median_noise(state.samples);
  return last_n_ >= min_samples_ && last_noise_ <= target_;
}

std::string NoiseTarget::reason() const {
  const char* cmp = last_noise_ <= target_ ? " <= " : " > ";
  std::string r = "noise " + format_percent(last_noise_) + cmp + format_percent(target_);
  if (last_n_ < min_samples_) {
    r += " (" + std::to_string(last_n_) + " < " + std::to_string(min_samples_) + " samples)";
  }
  return r;
}

bool MinSamples::done(const SampleState& state) {
  last_n_ = state.samples.size();
  return last_n_ >= n_;
}

std::string MinSamples::reason() const {
  return "samples " + std::to_string(last_n_) + (last_n_ >= n_ ? " >= " : " < ") + "min " +
         std::to_string(n_);
}

bool MaxSamples::done(const SampleState& state) {
  return state.samples.size() >= n_;
}

std::string MaxSamples::reason() const {
  return "max samples " + std::to_string(n_);
}

bool MaxTime::done(const SampleState& state) {
  return state.elapsed_s >= seconds_;
}

std::string MaxTime::reason() const {
  return "max time " + format_count_or_seconds(seconds_) + " s";
}

StoppingRule::StoppingRule(const StoppingLimits& limits) {
  if (limits.max_samples < 1) throw std::invalid_argument("max samples must be >= 1");
  quality_.push_back(std::make_unique<MinSamples>(limits.min_samples));
  quality_.push_back(std::make_unique<NoiseTarget>(limits.noise_target, limits.min_samples));
  limits_.push_back(std::make_unique<MaxSamples>(limits.max_samples));
  limits_.push_back(std::make_unique<MaxTime>(limits.max_time_s));
}

StoppingRule::StoppingRule(std::vector<std::unique_ptr<StoppingCriterion>> quality,
                           std::vector<std::unique_ptr<StoppingCriterion>> limits)
    : quality_(std::move(quality)), limits_(std::move(limits)) {
  if (quality_.empty() && limits_.empty()) {
    throw std::invalid_argument("a stopping rule needs at least one criterion");
  }
}

bool StoppingRule::done(const SampleState& state) {
  noise_ = relative_median_noise(state.samples);
  const std::string noise_note = " (noise " + format_percent(noise_) + ")";

  // Evaluate every criterion so that each one's reason() reflects this state.
  quality_met_ = !quality_.empty();
  std::string quality_reason;
  for (auto& q : quality_) {
    if (!q->done(state)) quality_met_ = false;
    if (q->name() == "noise" || quality_reason.empty()) quality_reason = q->reason();
  }
  if (quality_met_) {
    stop_reason_ = quality_reason;
    return true;
  }
  for (auto& l : limits_) {
    if (l->done(state)) {
      stop_reason_ = l->reason() + noise_note;
      return true;
    }
  }
  stop_reason_.clear();
  return false;
}

}  // namespace sb
