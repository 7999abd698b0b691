#pragma once
// One interface for every collector (wall clock, PAPI, memory, OpenCL events). The runner
// brackets each sample with start()/stop() and asks each collector for its per-stage summary.
// A collector that cannot work here (no PMU, no OpenCL) still exists: available() is false and
// unavailable_reason() says why, and the run goes on without it.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contract/collector_sources.h"
#include "schema/records.h"

namespace sb {

class Collector {
 public:
  virtual ~Collector() = default;
  virtual std::string name() const = 0;
  virtual bool available() const = 0;
  virtual std::string unavailable_reason() const = 0;
  // A new stage begins: forget what earlier stages accumulated.
  virtual void begin_stage(const CollectorSources& sources) = 0;
  // Around one sample (one forward or training step), outside of which nothing is counted.
  virtual void start() = 0;
  virtual void stop() = 0;
  // True for collectors that read the backend's per-command profiling events (OpenCL device
  // time, the timeline). The events cost the host per command, so the runner brackets no timed
  // sample with these: they run in device samples after the timed ones, with the events on.
  virtual bool needs_device_events() const { return false; }
  // Adds this collector's per-stage figures to the stage record: its counters, memory or
  // OpenCL block, or a named section of its own. items = work items per sample.
  virtual void report(StageRecord& stage, double items_per_sample) const = 0;
};

}  // namespace sb
