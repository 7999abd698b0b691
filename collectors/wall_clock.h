#pragma once
// The runner's sample timer: steady_clock around each sample (about 20 ns per read here, where
// PAPI_get_real_nsec is a ~240 ns syscall).
#include <chrono>
#include <cstdint>
#include <vector>

#include "collectors/collector.h"

namespace sb {

class WallClock : public Collector {
 public:
  std::string name() const override { return "wall_clock"; }
  bool available() const override { return true; }
  std::string unavailable_reason() const override { return {}; }
  void begin_stage(const CollectorSources& sources) override { samples_ns_.clear(); }
  void start() override { started_ = std::chrono::steady_clock::now(); }
  void stop() override;
  // The runner computes the time statistics from samples_ns(); nothing to add here.
  void report(nlohmann::json& stage, double items_per_sample) const override {}

  uint64_t last_ns() const { return samples_ns_.empty() ? 0 : samples_ns_.back(); }
  const std::vector<uint64_t>& samples_ns() const { return samples_ns_; }

 private:
  std::chrono::steady_clock::time_point started_{};
  std::vector<uint64_t> samples_ns_;
};

}  // namespace sb
