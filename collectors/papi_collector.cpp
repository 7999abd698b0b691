#include "collectors/papi_collector.h"

#include "collectors/sample_stats.h"
#include "probes/papi_init.h"

#ifdef STAGEBENCH_HAVE_PAPI
#include <papi.h>
#endif

namespace sb {

namespace {

constexpr const char* kScope = "calling thread";

std::string join_events(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

PapiCollector::PapiCollector(const std::vector<std::string>& events) {
  open_events(events);
  if (opened_.empty() && reason_.empty()) {
    reason_ = "no requested PAPI event opened here";
    for (const auto& status : status_) reason_ += "; " + status.name + ": " + status.error;
    if (status_.empty()) reason_ += " (no events requested)";
  }
}

#ifdef STAGEBENCH_HAVE_PAPI

void PapiCollector::open_events(const std::vector<std::string>& events) {
  const std::string& init_error = papi_init_error();
  int rc = init_error.empty() ? PAPI_create_eventset(&event_set_) : PAPI_OK;
  if (!init_error.empty() || rc != PAPI_OK) {
    reason_ = init_error.empty() ? "PAPI_create_eventset: " + papi_error_text(rc) : init_error;
    event_set_ = -1;
    for (const auto& event : events)
      status_.push_back({event, false, reason_, papi_event_tier(event)});
    return;
  }
  for (const auto& event : events) {
    PapiEventStatus status{event, false, "", papi_event_tier(event)};
    rc = PAPI_add_named_event(event_set_, event.c_str());
    if (rc != PAPI_OK) {
      status.error = "add: " + papi_error_text(rc);
    } else if ((rc = PAPI_start(event_set_)) != PAPI_OK) {
      // Named and added, but the set cannot be scheduled with it: leave it out, do not multiplex.
      status.error = "start: " + papi_error_text(rc);
      if (!opened_.empty()) status.error += " (together with " + join_events(opened_) + ")";
      PAPI_remove_named_event(event_set_, event.c_str());
    } else {
      std::vector<long long> values(opened_.size() + 1);
      rc = PAPI_stop(event_set_, values.data());
      if (rc != PAPI_OK) {
        status.error = "stop: " + papi_error_text(rc);
        PAPI_remove_named_event(event_set_, event.c_str());
      }
    }
    status.opened = status.error.empty();
    if (status.opened) opened_.push_back(event);
    status_.push_back(status);
  }
}

PapiCollector::~PapiCollector() {
  if (event_set_ == -1) return;
  if (running_) {
    std::vector<long long> values(opened_.size());
    PAPI_stop(event_set_, values.data());
  }
  PAPI_cleanup_eventset(event_set_);
  PAPI_destroy_eventset(&event_set_);
}

void PapiCollector::start() {
  if (!available()) return;
  running_ = PAPI_start(event_set_) == PAPI_OK;
  if (!running_) ++failed_samples_;
}

void PapiCollector::stop() {
  if (!running_) return;
  running_ = false;
  std::vector<long long> values(opened_.size());
  if (PAPI_stop(event_set_, values.data()) == PAPI_OK) {
    samples_.push_back(std::move(values));
  } else {
    ++failed_samples_;
  }
}

#else

void PapiCollector::open_events(const std::vector<std::string>& events) {
  reason_ = papi_init_error();
  for (const auto& event : events)
    status_.push_back({event, false, reason_, papi_event_tier(event)});
}

PapiCollector::~PapiCollector() = default;
void PapiCollector::start() {}
void PapiCollector::stop() {}

#endif

void PapiCollector::begin_stage(const CollectorSources& sources) {
  samples_.clear();
  failed_samples_ = 0;
}

void PapiCollector::report(StageRecord& stage, double items_per_sample) const {
  nlohmann::json papi = {{"available", available()}, {"scope", kScope}};
  if (!available()) papi["reason"] = reason_;
  papi["samples"] = samples_.size();
  if (failed_samples_ > 0) papi["failed_samples"] = failed_samples_;
  stage.sections["papi"] = papi;
  nlohmann::json opened = nlohmann::json::object();
  for (const auto& status : status_) {
    opened[status.name] = status.opened ? std::string("opened") : status.error;
  }
  if (!status_.empty()) stage.sections["counters_status"] = opened;
  if (samples_.empty()) return;
  for (size_t e = 0; e < opened_.size(); ++e) {
    std::vector<long long> values;
    for (const auto& sample : samples_) values.push_back(sample[e]);
    add_counter(stage, opened_[e], median_of(values), items_per_sample, papi_event_tier(opened_[e]),
                kScope);
  }
}

}  // namespace sb
