#pragma once
// Process-wide (all threads) CPU time, page faults and context switches from getrusage: the
// counter tier that works everywhere, PMU or not.
#include <array>
#include <cstdint>
#include <vector>

#include "collectors/collector.h"

namespace sb {

class RusageCollector : public Collector {
 public:
  // Counter names in "counters", in the order of a sample's values.
  static const std::array<const char*, 5> kCounterNames;

  std::string name() const override { return "rusage"; }
  bool available() const override { return true; }
  std::string unavailable_reason() const override { return {}; }
  void begin_stage(const CollectorSources& sources) override;
  void start() override;
  void stop() override;
  void report(StageRecord& stage, double items_per_sample) const override;

  using Sample = std::array<int64_t, 5>;
  const std::vector<Sample>& samples() const { return samples_; }

 private:
  Sample at_start_{};
  std::vector<Sample> samples_;
};

}  // namespace sb
