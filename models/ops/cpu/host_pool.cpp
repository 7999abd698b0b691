#include "models/ops/cpu/host_pool.h"

#include <cstdlib>
#include <cstring>

#include "models/ops/knobs.h"

namespace sb::cpu {

HostPool::~HostPool() {
  for (auto& [bytes, blocks] : free_)
    for (void* p : blocks) std::free(p);
}

void* HostPool::take(size_t bytes, size_t alignment) {
  if (bytes >= kMinBytes && cap_ > 0) {
    const std::lock_guard lock(mutex_);
    auto it = free_.find(bytes);
    if (it != free_.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      cached_ -= bytes;
      ++reused_;
      return p;
    }
  }
  return std::aligned_alloc(alignment, bytes);
}

void HostPool::give(void* p, size_t bytes) {
  if (p == nullptr) return;
  if (bytes >= kMinBytes && cap_ > 0) {
    const std::lock_guard lock(mutex_);
    if (cached_ + bytes <= cap_) {
      free_[bytes].push_back(p);
      cached_ += bytes;
      return;
    }
  }
  std::free(p);
}

size_t HostPool::cached_bytes() const {
  const std::lock_guard lock(mutex_);
  return cached_;
}

uint64_t HostPool::reused() const {
  const std::lock_guard lock(mutex_);
  return reused_;
}

bool HostPool::pool_requested() {
  return read_knob("STAGEBENCH_CPU_POOL", true,
                   {{"on", true}, {"1", true}, {"off", false}, {"0", false}});
}

HostPool& HostPool::process() {
  // Never destroyed: tensors that outlive main's objects (static ones) still give blocks back.
  static HostPool* pool = [] { return new HostPool(pool_requested() ? kDefaultCapBytes : 0); }();
  return *pool;
}

}  // namespace sb::cpu
