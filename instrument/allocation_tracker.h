#pragma once
// Counts the bytes a backend holds (host tensors or device buffers) and their high-water mark.
// glibc has no malloc hooks, so the model's own allocator reports here instead.
#include <atomic>
#include <cstdint>

namespace sb {

class AllocationTracker {
 public:
  void allocated(uint64_t bytes) {
    uint64_t now = live_.fetch_add(bytes) + bytes;
    uint64_t peak = peak_.load();
    while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
    }
    total_.fetch_add(bytes);
  }
  void released(uint64_t bytes) { live_.fetch_sub(bytes); }
  // Starts a new high-water window at the bytes held now.
  void reset_peak() { peak_.store(live_.load()); }
  uint64_t live() const { return live_.load(); }
  uint64_t peak() const { return peak_.load(); }
  uint64_t total_allocated() const { return total_.load(); }

 private:
  std::atomic<uint64_t> live_{0};
  std::atomic<uint64_t> peak_{0};
  std::atomic<uint64_t> total_{0};
};

}  // namespace sb
