#pragma once
// What a workload hands the collectors: its backend's own bookkeeping. The trackers are only
// named here, not defined: a workload's backend fills them and the collectors read them
// (instrument/), so the contract stays a leaf that neither side has to look past.
#include <cstdint>

namespace sb {

class AllocationTracker;
class KernelLog;

// The trackers are non-const: the memory collector starts a new high-water window per sample.
struct CollectorSources {
  AllocationTracker* host_tensors = nullptr;
  AllocationTracker* device_buffers = nullptr;
  KernelLog* kernels = nullptr;
  // Bytes the stage keeps allocated between samples (its weights, caches, static plan),
  // measured by the runner around Workload::prepare(). Other stages' resident bytes sit in the
  // same trackers; a stage's own memory is its resident bytes plus its transient peak.
  uint64_t stage_resident_host_bytes = 0;
  uint64_t stage_resident_device_bytes = 0;
};

}  // namespace sb
