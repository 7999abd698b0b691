#pragma once
// Reuse of the CPU backend's large host blocks. An eager forward allocates its activations
// afresh at every op and frees them at the end, and the C library hands blocks of 32 MiB and
// more (and a heap top it trims) back to the kernel, so every forward faults its memory in
// again: Enformer small's stage 0 took 53,000 page faults a forward (218 MB), and an im2col
// that writes a fresh 63 MB buffer ran at 0.6 GB/s on one thread. In a VM a fault costs more,
// and faults do not get faster with more threads, so at 16 threads they were a large share of
// the forward. A freed block of at least kMinBytes is kept for the next request of the same
// size (the sizes repeat from one forward to the next), up to a byte cap; blocks beyond it are
// freed. Cached blocks count in the process's resident memory (host RSS), not in the tensors'
// tracked bytes. STAGEBENCH_CPU_POOL=off turns the cache off (every block goes back at once).
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace sb::cpu {

class HostPool {
 public:
  static constexpr size_t kMinBytes = size_t{256} << 10;
  static constexpr size_t kDefaultCapBytes = size_t{4} << 30;

  // cap_bytes = 0: no caching, take() allocates and give() frees.
  explicit HostPool(size_t cap_bytes) : cap_(cap_bytes) {}
  ~HostPool();
  HostPool(const HostPool&) = delete;
  HostPool& operator=(const HostPool&) = delete;

  // A block of `bytes` (a multiple of `alignment`), aligned to `alignment`: a cached one of
  // that size when there is one; nullptr when the allocation fails.
  void* take(size_t bytes, size_t alignment);
  // Returns a block take() gave, of the same size.
  void give(void* p, size_t bytes);

  size_t cached_bytes() const;
  uint64_t reused() const;  // take()s served from the cache

  // The process's pool: cap kDefaultCapBytes, 0 when STAGEBENCH_CPU_POOL is off (read once).
  static HostPool& process();
  // STAGEBENCH_CPU_POOL read now (process() reads it once; the backend reads it when it is made,
  // so that a bad value is refused before anything runs).
  static bool pool_requested();

 private:
  mutable std::mutex mutex_;
  size_t cap_;
  size_t cached_ = 0;
  uint64_t reused_ = 0;
  std::map<size_t, std::vector<void*>> free_;  // size -> blocks
};

}  // namespace sb::cpu
