#pragma once
// Where a device backend reports every kernel it ran (with its device-side duration from
// OpenCL profiling events) and every byte it moved between host and device. The OpenCL
// collector reads it per stage.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace sb {

// One device command's profiling timestamps (the device's clock, ns), kept only while a timeline
// capture is on (collectors/timeline_collector.h): QUEUED (when the host enqueued it), START
// and END. A library call bracketed by markers has its first marker's QUEUED and END as queued
// and start.
struct KernelEvent {
  std::string name;
  uint64_t queued_ns = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

struct KernelTotals {
  uint64_t launches = 0;
  uint64_t total_ns = 0;
};

class KernelLog {
 public:
  void kernel(const std::string& name, uint64_t duration_ns) {
    auto& k = kernels_[name];
    ++k.launches;
    k.total_ns += duration_ns;
  }
  // kernel() with the command's timestamps, which a timeline capture keeps. The backend asks
  // capturing() first, so that reading them costs nothing when no capture is on.
  void kernel_event(const std::string& name, uint64_t queued_ns, uint64_t start_ns,
                    uint64_t end_ns) {
    kernel(name, end_ns > start_ns ? end_ns - start_ns : 0);
    if (capture_) capture_->push_back({name, queued_ns, start_ns, end_ns});
  }
  bool capturing() const { return capture_ != nullptr; }
  // A backend whose device times arrive later (OpenCL profiling events, read once the work has
  // run) hands its reader here; drain() reads whatever is pending into this log. Readers call
  // it outside the timed region: reading a training step's hundred events took about 0.8 ms on
  // NVIDIA's OpenCL, which a sample must not contain.
  void set_drain(std::function<void()> drain) { drain_ = std::move(drain); }
  void drain() {
    if (drain_) drain_();
  }
  // Whether the backend puts a profiling event behind each command it queues (default on).
  // Events cost NVIDIA's OpenCL host several microseconds a command, which a host-bound step
  // pays in full (results/h200/lead30-2026-11-28/README.md), so the runner turns them off for
  // the timed samples and on for the device samples that follow them (harness/runner.cpp).
  void set_recording(bool on) { recording_ = on; }
  bool recording() const { return recording_; }
  // Keeps every kernel_event() in `events` until capture_into(nullptr).
  void capture_into(std::vector<KernelEvent>* events) { capture_ = events; }
  // One tensor-core GEMM call and the path it took, e.g. "fp16 wgmma", "int8 mma.sync": the
  // stage record's gemm_path (docs/schema.md).
  void gemm(const std::string& precision_and_path) { ++gemms_[precision_and_path]; }
  void host_to_device(uint64_t bytes) { h2d_bytes_ += bytes; }
  void device_to_host(uint64_t bytes) { d2h_bytes_ += bytes; }
  // Forgets everything so far, what was still pending included.
  void clear() {
    drain();
    kernels_.clear();
    gemms_.clear();
    h2d_bytes_ = d2h_bytes_ = 0;
  }
  const std::map<std::string, KernelTotals>& kernels() const { return kernels_; }
  const std::map<std::string, uint64_t>& gemms() const { return gemms_; }
  uint64_t total_ns() const {
    uint64_t t = 0;
    for (const auto& [name, k] : kernels_) t += k.total_ns;
    return t;
  }
  uint64_t h2d_bytes() const { return h2d_bytes_; }
  uint64_t d2h_bytes() const { return d2h_bytes_; }

 private:
  std::map<std::string, KernelTotals> kernels_;
  std::map<std::string, uint64_t> gemms_;
  uint64_t h2d_bytes_ = 0;
  uint64_t d2h_bytes_ = 0;
  std::vector<KernelEvent>* capture_ = nullptr;
  std::function<void()> drain_;
  bool recording_ = true;
};

}  // namespace sb
