#include "harness/stopping.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <stdexcept>

#include "stats/statistics.h"

namespace sb {

std::string format_percent(double fraction) {
  if (!std::isfinite(fraction)) return "inf%";
  const double pct = fraction * 100;
  char buf[32];
  // One decimal below 10% (where the targets live), whole numbers above.
  std::snprintf(buf, sizeof buf, pct < 10 ? "%.1f%%" : "%.0f%%", pct);
  return buf;
}

std::string format_duration(double seconds) {
  char buf[64];
  if (!std::isfinite(seconds)) return "forever";
  if (seconds < 120) {
    std::snprintf(buf, sizeof buf, "%g s", seconds);
  } else if (seconds < 2 * 3600) {
    std::snprintf(buf, sizeof buf, "%.0f minutes", seconds / 60);
  } else if (seconds < 2 * 86400) {
    std::snprintf(buf, sizeof buf, "%.1f hours", seconds / 3600);
  } else if (seconds < 2 * 365.25 * 86400) {
    std::snprintf(buf, sizeof buf, "%.1f days", seconds / 86400);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g years", seconds / (365.25 * 86400));
  }
  return buf;
}

namespace {

// A budget beyond its limit is a typo or a test of the limits, never a measurement: refused
// with the time it would take rather than run until someone kills it.
void check_budget(const char* what, double seconds, double limit) {
  if (seconds <= limit) return;
  throw std::invalid_argument(std::string(what) + " of " + format_duration(seconds) +
                              " is absurd (at most " + format_duration(limit) + ")");
}

}  // namespace

void SamplingOptions::validate() const {
  if (!(noise_target > 0) || !std::isfinite(noise_target))
    throw std::invalid_argument("noise target must be a finite number > 0");
  if (min_samples < 1) throw std::invalid_argument("min samples must be >= 1");
  if (max_samples < min_samples) throw std::invalid_argument("max samples must be >= min samples");
  if (stable_checks < 1) throw std::invalid_argument("stable checks must be >= 1");
  if (!(max_time_s >= 0)) throw std::invalid_argument("max time must be >= 0");
  if (!(warmup_s >= 0)) throw std::invalid_argument("warm-up time must be >= 0");
  if (lead_in_runs > kMaxLeadInRuns)
    throw std::invalid_argument("lead-in runs must be <= " + std::to_string(kMaxLeadInRuns));
  check_budget("max time (measuring per ladder)", max_time_s, kMaxTimeLimitS);
  check_budget("warm-up per stage", warmup_s, kWarmupLimitS);
  if (quality.empty()) throw std::invalid_argument("at least one quality criterion is needed");
  for (const auto& name : quality) make_criterion(name, *this);  // throws for an unknown name
}

namespace {

std::string samples_short(size_t n, size_t min) {
  return "samples " + std::to_string(n) + " < min " + std::to_string(min);
}

std::string format_count_or_seconds(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

using Factory = std::function<std::unique_ptr<StoppingCriterion>(const SamplingOptions&)>;

const std::map<std::string, Factory>& registry() {
  static const std::map<std::string, Factory> r = {
      {"noise",
       [](const SamplingOptions& o) {
         return std::make_unique<NoiseTarget>(o.noise_target, o.min_samples);
       }},
      {"paired-noise",
       [](const SamplingOptions& o) {
         return std::make_unique<PairedNoiseTarget>(o.noise_target, o.min_samples);
       }},
      {"min-samples",
       [](const SamplingOptions& o) { return std::make_unique<MinSamples>(o.min_samples); }},
      {"max-samples",
       [](const SamplingOptions& o) { return std::make_unique<MaxSamples>(o.max_samples); }},
      {"max-time",
       [](const SamplingOptions& o) { return std::make_unique<MaxTime>(o.max_time_s); }},
  };
  return r;
}

}  // namespace

std::vector<std::string> criterion_names() {
  std::vector<std::string> names;
  for (const auto& [name, make] : registry()) names.push_back(name);
  return names;
}

std::unique_ptr<StoppingCriterion> make_criterion(const std::string& name,
                                                  const SamplingOptions& options) {
  const auto it = registry().find(name);
  if (it == registry().end()) {
    std::string known;
    for (const auto& n : criterion_names()) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown stopping criterion '" + name + "' (" + known + ")");
  }
  return it->second(options);
}

NoiseTarget::NoiseTarget(double relative_target, size_t min_samples)
    : StoppingCriterion("noise"), target_(relative_target), min_samples_(min_samples) {
  if (!(relative_target > 0)) throw std::invalid_argument("noise target must be > 0");
}

CriterionVerdict NoiseTarget::do_assess(const SampleState& state) const {
  const size_t n = state.samples.size();
  const double noise = relative_median_noise(state.samples);
  const bool quiet = noise <= target_;
  CriterionVerdict v;
  v.met = n >= min_samples_ && quiet;
  v.reason = "noise " + format_percent(noise) + (quiet ? " <= " : " > ") + format_percent(target_);
  if (n < min_samples_) {
    v.reason += " (" + std::to_string(n) + " < " + std::to_string(min_samples_) + " samples)";
    v.unmet.push_back(samples_short(n, min_samples_));
  }
  if (!quiet) v.unmet.push_back("noise " + format_percent(noise) + " > " + format_percent(target_));
  return v;
}

PairedNoiseTarget::PairedNoiseTarget(double relative_target, size_t min_samples)
    : StoppingCriterion("paired-noise"), target_(relative_target), min_samples_(min_samples) {
  if (!(relative_target > 0)) throw std::invalid_argument("noise target must be > 0");
}

CriterionVerdict PairedNoiseTarget::do_assess(const SampleState& state) const {
  CriterionVerdict v;
  if (state.reference == nullptr || state.reference->empty()) {
    v.reason = "paired noise: no reference in the same rounds";
    v.unmet.push_back("paired noise: no other stage measured in the same rounds");
    return v;
  }
  const size_t n = std::min(state.samples.size(), state.reference->size());
  std::vector<double> ratios;
  ratios.reserve(n);
  for (size_t r = 0; r < n; ++r) {
    const double ref = (*state.reference)[r];
    // A round whose reference is not a positive time (below the clock) has no ratio.
    if (ref > 0 && std::isfinite(ref)) ratios.push_back(state.samples[r] / ref);
  }
  const size_t m = ratios.size();
  const double noise = relative_median_noise(ratios);  // infinite below 2 ratios
  const bool quiet = noise <= target_;
  v.met = m >= min_samples_ && quiet;
  v.reason =
      "paired noise " + format_percent(noise) + (quiet ? " <= " : " > ") + format_percent(target_);
  if (m < min_samples_) {
    v.reason += " (" + std::to_string(m) + " < " + std::to_string(min_samples_) + " rounds)";
    v.unmet.push_back("paired rounds " + std::to_string(m) + " < min " +
                      std::to_string(min_samples_));
  }
  if (!quiet)
    v.unmet.push_back("paired noise " + format_percent(noise) + " > " + format_percent(target_));
  return v;
}

CriterionVerdict MinSamples::do_assess(const SampleState& state) const {
  const size_t n = state.samples.size();
  CriterionVerdict v;
  v.met = n >= n_;
  v.reason =
      "samples " + std::to_string(n) + (v.met ? " >= " : " < ") + "min " + std::to_string(n_);
  if (!v.met) v.unmet.push_back(samples_short(n, n_));
  return v;
}

CriterionVerdict MaxSamples::do_assess(const SampleState& state) const {
  return {state.samples.size() >= n_, "max samples " + std::to_string(n_), {}};
}

CriterionVerdict MaxTime::do_assess(const SampleState& state) const {
  return {state.elapsed_s >= seconds_, "max time " + format_count_or_seconds(seconds_) + " s", {}};
}

StoppingRule::StoppingRule(const SamplingOptions& options) : stable_checks_(options.stable_checks) {
  options.validate();
  for (const auto& name : options.quality) quality_.push_back(make_criterion(name, options));
  limits_.push_back(make_criterion("max-samples", options));
  limits_.push_back(make_criterion("max-time", options));
}

StoppingRule::StoppingRule(std::vector<std::unique_ptr<StoppingCriterion>> quality,
                           std::vector<std::unique_ptr<StoppingCriterion>> limits,
                           size_t stable_checks)
    : quality_(std::move(quality)), limits_(std::move(limits)), stable_checks_(stable_checks) {
  if (quality_.empty() && limits_.empty()) {
    throw std::invalid_argument("a stopping rule needs at least one criterion");
  }
  if (stable_checks_ < 1) throw std::invalid_argument("stable checks must be >= 1");
}

bool StoppingRule::done(const SampleState& state) {
  quality_met_ = !quality_.empty();
  std::string quality_reason;
  for (const auto& q : quality_) {
    const CriterionVerdict v = q->assess(state);
    quality_met_ = quality_met_ && v.met;
    quality_reason += (quality_reason.empty() ? "" : "; ") + v.reason;
  }
  held_ = quality_met_ ? held_ + 1 : 0;
  // Met but not yet for stable_checks checks: a limit may still end it (quality then wins the
  // reason, as below), otherwise sampling goes on.
  if (quality_met_ && held_ >= stable_checks_) {
    stop_reason_ = quality_reason;
    if (stable_checks_ > 1) stop_reason_ += ", held " + std::to_string(held_) + " checks";
    return true;
  }
  for (const auto& l : limits_) {
    const CriterionVerdict v = l->assess(state);
    if (!v.met) continue;
    stop_reason_ = quality_met_ ? quality_reason + ", held " + std::to_string(held_) + " of " +
                                      std::to_string(stable_checks_) + " checks at " + v.reason
                                : v.reason + " (noise " +
                                      format_percent(relative_median_noise(state.samples)) + ")";
    return true;
  }
  stop_reason_.clear();
  return false;
}

std::vector<std::string> StoppingRule::unmet_quality(const SampleState& state) const {
  std::vector<std::string> unmet;
  for (const auto& q : quality_) {
    const CriterionVerdict v = q->assess(state);
    unmet.insert(unmet.end(), v.unmet.begin(), v.unmet.end());
  }
  return unmet;
}

}  // namespace sb
