#include "collectors/timeline_collector.h"

namespace sb {

void TimelineSink::put(StageTimeline stage) {
  stage.run = run_;
  for (auto& s : stages_)
    if (s.run == stage.run && s.stage == stage.stage) {
      s = std::move(stage);
      return;
    }
  stages_.push_back(std::move(stage));
}

TimelineCollector::~TimelineCollector() {
  end_capture();  // a stage that threw between start() and stop() must not leave a target set
}

void TimelineCollector::begin_stage(const CollectorSources& sources) {
  end_capture();
  kernels_ = sources.kernels;
  captured_ = false;
  sample_ = {};
}

void TimelineCollector::start() {
  if (captured_ || capturing_) return;
  sample_ = {};
  if (kernels_) {
    kernels_->drain();  // earlier work's events stay out of the capture
    kernels_->capture_into(&sample_.kernels);
  }
  host_range_capture() = &sample_.phases;
  capturing_ = true;
  sample_.host_begin_ns = host_now_ns();
}

void TimelineCollector::stop() {
  if (!capturing_) return;
  sample_.host_end_ns = host_now_ns();
  if (kernels_) kernels_->drain();  // the sample's events, with their timestamps
  end_capture();
  for (const auto& k : sample_.kernels)
    sample_.device_ns += k.end_ns > k.start_ns ? k.end_ns - k.start_ns : 0;
  captured_ = true;
}

void TimelineCollector::end_capture() {
  if (!capturing_) return;
  if (kernels_) kernels_->capture_into(nullptr);
  if (host_range_capture() == &sample_.phases) host_range_capture() = nullptr;
  capturing_ = false;
}

void TimelineCollector::report(StageRecord& stage, double) const {
  if (!captured_ || !sink_) return;
  StageTimeline t = sample_;
  t.stage = stage.id;
  sink_->put(std::move(t));
}

}  // namespace sb
