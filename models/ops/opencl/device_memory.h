#pragma once
// Device buffers behind Tensors, with a caching allocator as GPU frameworks have: a freed
// buffer goes to a pool keyed by its exact byte size and serves the next allocation of that
// size, so an eager model does not call clCreateBuffer per op. Reuse is safe because every
// command goes through one in-order queue: work on a buffer's old tensor is ordered before
// work on its new one.
//
// The AllocationTracker counts the bytes held by live tensors only; pooled free buffers are
// not counted there (pooled_bytes() reports them), so "device peak" means what the model
// needed at once, independent of the pool's history.
#include <CL/opencl.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "instrument/allocation_tracker.h"
#include "models/ops/tensor.h"

namespace sb {

class BufferPool : public std::enable_shared_from_this<BufferPool> {
 public:
  explicit BufferPool(cl::Context context) : context_(std::move(context)) {}

  // A tensor whose storage is a (possibly reused) buffer of exactly shape x dtype bytes.
  Tensor allocate(std::vector<int64_t> shape, DType dtype);
  AllocationTracker& tracker() { return tracker_; }
  uint64_t pooled_bytes() const;
  // Releases every pooled free buffer back to the driver.
  void trim();

 private:
  friend struct ClStorage;
  void recycle(cl::Buffer buffer, size_t bytes);
  cl::Buffer take(size_t bytes);

  cl::Context context_;
  AllocationTracker tracker_;
  mutable std::mutex mutex_;
  std::map<size_t, std::vector<cl::Buffer>> free_;
  uint64_t pooled_bytes_ = 0;
};

struct ClStorage : Storage {
  ClStorage(std::shared_ptr<BufferPool> pool, cl::Buffer buffer, size_t bytes);
  // A sub-buffer of `owner`'s buffer (Backend::flat_parts): not tracked, never pooled.
  ClStorage(std::shared_ptr<Storage> owner, cl::Buffer sub_buffer, size_t bytes);
  ~ClStorage() override;
  ClStorage(const ClStorage&) = delete;
  ClStorage& operator=(const ClStorage&) = delete;

  std::shared_ptr<BufferPool> pool;  // keeps the pool alive while tensors still refer to it
  cl::Buffer buffer;
  size_t bytes;
  std::shared_ptr<Storage> owner;  // set for sub-buffers
};

// The cl::Buffer behind a tensor of this backend; throws for an undefined tensor.
const cl::Buffer& device_buffer(const Tensor& t);

}  // namespace sb
