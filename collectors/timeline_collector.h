#pragma once
// `run --timeline`: the kernels and host phases of one measured sample per stage, kept for a
// Chrome trace-event file (collectors/timeline_trace.h). The collector captures the first
// sample it brackets, the stage's first device sample (harness/runner.cpp): the device's
// profiling timestamps of every command the sample queued (the same events the OpenCL
// collector sums into the stage's device time, so the kernels of a captured sample add up to
// that sample's device time exactly) and the host ranges the model marked
// (instrument/host_ranges.h), and hands them to a sink shared by the run's collectors, which
// outlives them.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "instrument/host_ranges.h"
#include "instrument/kernel_log.h"

namespace sb {

struct StageTimeline {
  std::string run;             // "enformer/tiny/opencl": one process of the trace
  std::string stage;           // the stage's id
  uint64_t host_begin_ns = 0;  // the sample, host_now_ns()
  uint64_t host_end_ns = 0;
  std::vector<HostRange> phases;     // host clock
  std::vector<KernelEvent> kernels;  // the device's clock
  uint64_t device_ns = 0;            // the kernels' summed durations
};

class TimelineSink {
 public:
  // The run the next stages belong to (`run` measures one backend after another).
  void begin_run(std::string label) { run_ = std::move(label); }
  // Adds or replaces (the runner reports a stage again with each partial result) the stage.
  void put(StageTimeline stage);
  const std::vector<StageTimeline>& stages() const { return stages_; }

 private:
  std::string run_;
  std::vector<StageTimeline> stages_;
};

class TimelineCollector : public Collector {
 public:
  explicit TimelineCollector(std::shared_ptr<TimelineSink> sink) : sink_(std::move(sink)) {}
  ~TimelineCollector() override;
  std::string name() const override { return "timeline"; }
  bool available() const override { return true; }
  std::string unavailable_reason() const override { return {}; }
  bool needs_device_events() const override { return true; }
  void begin_stage(const CollectorSources& sources) override;
  void start() override;
  void stop() override;
  // Hands the captured sample to the sink under the stage's id; the stage record is unchanged.
  void report(StageRecord& stage, double items_per_sample) const override;

 private:
  void end_capture();

  std::shared_ptr<TimelineSink> sink_;
  KernelLog* kernels_ = nullptr;
  bool capturing_ = false;
  bool captured_ = false;
  StageTimeline sample_;
};

}  // namespace sb
