#include "collectors/memory_collector.h"

#include <algorithm>
#include <fstream>
#include <string>

#include "instrument/allocation_tracker.h"

namespace sb {

uint64_t read_vm_hwm_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

bool reset_vm_hwm() {
  std::ofstream clear_refs("/proc/self/clear_refs");
  clear_refs << "5";
  clear_refs.flush();
  return static_cast<bool>(clear_refs);
}

void MemoryCollector::begin_stage(const CollectorSources& sources) {
  sources_ = sources;
  samples_ = 0;
  rss_reset_ = true;
  host_peak_ = tensor_peak_ = device_peak_ = 0;
}

void MemoryCollector::start() {
  rss_reset_ = reset_vm_hwm() && rss_reset_;
  if (sources_.host_tensors) {
    sources_.host_tensors->reset_peak();
    tensor_live_at_start_ = sources_.host_tensors->live();
  }
  if (sources_.device_buffers) {
    sources_.device_buffers->reset_peak();
    device_live_at_start_ = sources_.device_buffers->live();
  }
}

void MemoryCollector::stop() {
  ++samples_;
  host_peak_ = std::max(host_peak_, read_vm_hwm_bytes());
  if (sources_.host_tensors)
    tensor_peak_ =
        std::max(tensor_peak_, sources_.stage_resident_host_bytes + sources_.host_tensors->peak() -
                                   tensor_live_at_start_);
  if (sources_.device_buffers)
    device_peak_ =
        std::max(device_peak_, sources_.stage_resident_device_bytes +
                                   sources_.device_buffers->peak() - device_live_at_start_);
}

void MemoryCollector::report(StageRecord& stage, double items_per_sample) const {
  if (samples_ == 0) return;
  MemoryRecord& memory = stage.memory;
  memory.host_peak_bytes = host_peak_;
  memory.host_tensor_peak_bytes = sources_.host_tensors ? Bytes(tensor_peak_) : std::nullopt;
  memory.device_peak_bytes = sources_.device_buffers ? Bytes(device_peak_) : std::nullopt;
  memory.rss_reset = rss_reset_;
}

}  // namespace sb
