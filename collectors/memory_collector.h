#pragma once
// Peak memory per sample: the process's RSS high-water mark (VmHWM, reset before each sample by
// writing "5" to /proc/self/clear_refs), the peak of the model's own host tensors, and the peak
// of the backend's device buffers. The stage reports the largest peak over its samples.
// The backend's trackers hold every stage's resident bytes at once (stages interleave), so the
// tracker peaks are attributed: the stage's own resident bytes (CollectorSources) plus the peak
// above what was live when the sample started. RSS stays process-wide.
#include <cstdint>
#include <optional>

#include "collectors/collector.h"

namespace sb {

class MemoryCollector : public Collector {
 public:
  std::string name() const override { return "memory"; }
  bool available() const override { return true; }
  std::string unavailable_reason() const override { return {}; }
  void begin_stage(const CollectorSources& sources) override;
  void start() override;
  void stop() override;
  // "memory": {host_peak_bytes, host_tensor_peak_bytes, device_peak_bytes, rss_reset}; the
  // tracker figures are null when the backend has no such tracker.
  void report(StageRecord& stage, double items_per_sample) const override;

  uint64_t host_peak_bytes() const { return host_peak_; }
  bool rss_reset() const { return rss_reset_; }

 private:
  CollectorSources sources_;
  size_t samples_ = 0;
  bool rss_reset_ = true;  // false once any reset failed: VmHWM is then the process's peak
  uint64_t host_peak_ = 0;
  uint64_t tensor_peak_ = 0;
  uint64_t device_peak_ = 0;
  uint64_t tensor_live_at_start_ = 0;
  uint64_t device_live_at_start_ = 0;
};

// VmHWM of /proc/self/status in bytes; 0 when unreadable.
uint64_t read_vm_hwm_bytes();
// Writes "5" to /proc/self/clear_refs; false when the kernel refused.
bool reset_vm_hwm();

}  // namespace sb
