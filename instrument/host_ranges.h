#pragma once
// Named host-side ranges of one step (data, h2d, forward, backward, optimizer) for timelines,
// in the manner of NVTX ranges: a model marks where each phase of its step ends, and nothing is
// kept, nor the clock read, unless a timeline capture is on (collectors/timeline_collector.h).
// The ranges are the host's own time in each phase: with no synchronization inside a timed
// step, a phase ends when its work is queued, and the device track shows when it ran.
//
// One capture target for the process: the runner measures on one thread, and the threads a
// model runs beside it (prefetch workers) mark nothing.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace sb {

struct HostRange {
  std::string name;
  uint64_t begin_ns = 0;  // host_now_ns()
  uint64_t end_ns = 0;
};

inline uint64_t host_now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

// Where the ranges go while a capture is on; null otherwise.
inline std::vector<HostRange>*& host_range_capture() {
  static std::vector<HostRange>* target = nullptr;
  return target;
}

// The phases of one step, each ending where the next begins: PhaseMarks marks; ... ;
// marks.end("data"); ...; marks.end("h2d"); ...
class PhaseMarks {
 public:
  PhaseMarks() : last_ns_(host_range_capture() ? host_now_ns() : 0) {}
  void end(const char* phase) {
    std::vector<HostRange>* target = host_range_capture();
    if (!target) return;
    const uint64_t now = host_now_ns();
    if (last_ns_ == 0) {  // the capture began inside this step: its first phase is unknown
      last_ns_ = now;
      return;
    }
    target->push_back({phase, last_ns_, now});
    last_ns_ = now;
  }

 private:
  uint64_t last_ns_;
};

}  // namespace sb
