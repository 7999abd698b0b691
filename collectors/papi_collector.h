#pragma once
// PAPI counters per sample, in ONE event set and never multiplexed (PAPI scales multiplexed
// counts silently): an event that does not open, or does not fit with the ones already in the
// set, is recorded as not opened with the reason. PAPI counts the calling thread only, and the
// event set belongs to the thread that constructed the collector: start()/stop() must run there.
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "probes/probe.h"

namespace sb {

class PapiCollector : public Collector {
 public:
  explicit PapiCollector(const std::vector<std::string>& events);
  ~PapiCollector() override;
  PapiCollector(const PapiCollector&) = delete;
  PapiCollector& operator=(const PapiCollector&) = delete;

  std::string name() const override { return "papi"; }
  bool available() const override { return !opened_.empty(); }
  std::string unavailable_reason() const override { return reason_; }
  void begin_stage(const CollectorSources& sources) override;
  void start() override;
  void stop() override;
  // "counters": {event: {value (median per sample), per_item, tier, scope}},
  // "counters_status": {event: "opened" | error}, "papi": {available, reason, scope, ...}.
  void report(StageRecord& stage, double items_per_sample) const override;

  const std::vector<PapiEventStatus>& event_status() const { return status_; }
  const std::vector<std::string>& opened_events() const { return opened_; }

 private:
  void open_events(const std::vector<std::string>& events);

  int event_set_ = -1;
  bool running_ = false;
  std::vector<PapiEventStatus> status_;
  std::vector<std::string> opened_;  // in event-set order
  std::string reason_;
  std::vector<std::vector<long long>> samples_;  // [sample][opened event]
  size_t failed_samples_ = 0;
};

}  // namespace sb
