#pragma once
// Device time per sample from the backend's KernelLog (OpenCL profiling events, every kernel a
// call launched), per kernel name, plus host<->device bytes.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "instrument/kernel_log.h"

namespace sb {

// The stage's gemm_path from its GEMM calls keyed "precision path" ("fp16 wgmma"): the paths,
// most calls first (ties by name), joined by "+"; nullopt when there were none.
std::optional<std::string> gemm_path_of(const std::map<std::string, uint64_t>& calls);

class OpenCLCollector : public Collector {
 public:
  std::string name() const override { return "opencl"; }
  // Reflects the sources of the last begin_stage() (a CPU backend has no kernel log); true
  // before the first one, because the runner keeps only collectors available at creation.
  bool available() const override { return !stage_begun_ || kernels_ != nullptr; }
  std::string unavailable_reason() const override;
  bool needs_device_events() const override { return true; }
  void begin_stage(const CollectorSources& sources) override;
  void start() override;
  void stop() override;
  // "opencl": {kernels: [{name, launches, total_ns}] per sample, device_ms: {median, min, max},
  // h2d_bytes, d2h_bytes per sample, and where the stage ran tensor-core GEMMs gemm_calls:
  // {"fp16 wgmma": calls per sample, ...}}, and the stage's gemm_path (gemm_path_of). Nothing
  // when unavailable.
  void report(StageRecord& stage, double items_per_sample) const override;

  const std::vector<uint64_t>& device_ns_per_sample() const { return device_ns_; }

 private:
  bool stage_begun_ = false;
  KernelLog* kernels_ = nullptr;
  std::map<std::string, KernelTotals> totals_;  // summed over the stage's samples
  std::map<std::string, uint64_t> gemms_;       // tensor-core GEMM calls by "precision path"
  std::vector<uint64_t> device_ns_;
  uint64_t h2d_bytes_ = 0;
  uint64_t d2h_bytes_ = 0;
};

}  // namespace sb
