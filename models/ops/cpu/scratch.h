#pragma once
// A grow-only aligned buffer for per-call copies (conversions, reorders), counted like any other
// host memory: held by the op that needs it, so a call does not allocate, and fault in, a fresh
// buffer each time.
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <utility>

#include "instrument/allocation_tracker.h"

namespace sb::cpu {

class Scratch {
 public:
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  explicit Scratch(std::shared_ptr<AllocationTracker> t) : tracker_(std::move(t)) {}
  ~Scratch() { reset(); }
  void* get(size_t bytes) {
    if (bytes > capacity_) {
      reset();
      capacity_ = (bytes + 63) / 64 * 64;
      data_ = std::aligned_alloc(64, capacity_);
      if (data_ == nullptr) throw std::bad_alloc();
      tracker_->allocated(capacity_);
    }
    return data_;
  }

 private:
  void reset() {
    if (data_ == nullptr) return;
    std::free(data_);
    tracker_->released(capacity_);
    data_ = nullptr;
    capacity_ = 0;
  }
  std::shared_ptr<AllocationTracker> tracker_;
  void* data_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace sb::cpu
