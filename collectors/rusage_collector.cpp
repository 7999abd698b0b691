#include "collectors/rusage_collector.h"

#include <sys/resource.h>

#include "collectors/sample_stats.h"

namespace sb {

const std::array<const char*, 5> RusageCollector::kCounterNames = {
    "os::cpu_time_ns", "os::minor_faults", "os::major_faults", "os::voluntary_switches",
    "os::involuntary_switches"};

namespace {

int64_t timeval_ns(const timeval& t) {
  return static_cast<int64_t>(t.tv_sec) * 1000000000 + static_cast<int64_t>(t.tv_usec) * 1000;
}

RusageCollector::Sample read_rusage() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return {timeval_ns(usage.ru_utime) + timeval_ns(usage.ru_stime), usage.ru_minflt, usage.ru_majflt,
          usage.ru_nvcsw, usage.ru_nivcsw};
}

}  // namespace

void RusageCollector::begin_stage(const CollectorSources& sources) {
  samples_.clear();
}

void RusageCollector::start() {
  at_start_ = read_rusage();
}

void RusageCollector::stop() {
  Sample delta = read_rusage();
  for (size_t i = 0; i < delta.size(); ++i) delta[i] -= at_start_[i];
  samples_.push_back(delta);
}

void RusageCollector::report(StageRecord& stage, double items_per_sample) const {
  if (samples_.empty()) return;
  for (size_t i = 0; i < kCounterNames.size(); ++i) {
    std::vector<int64_t> values;
    for (const auto& sample : samples_) values.push_back(sample[i]);
    add_counter(stage, kCounterNames[i], median_of(values), items_per_sample, "os",
                "process (all threads)");
  }
}

}  // namespace sb
