#include "models/ops/opencl/device_memory.h"

#include <algorithm>
#include <stdexcept>

namespace sb {

ClStorage::ClStorage(std::shared_ptr<BufferPool> p, cl::Buffer b, size_t n)
    : pool(std::move(p)), buffer(std::move(b)), bytes(n) {
  pool->tracker_.allocated(bytes);
}

ClStorage::ClStorage(std::shared_ptr<Storage> o, cl::Buffer sub, size_t n)
    : buffer(std::move(sub)), bytes(n), owner(std::move(o)) {}

ClStorage::~ClStorage() {
  if (owner) return;
  pool->tracker_.released(bytes);
  pool->recycle(std::move(buffer), bytes);
}

Tensor BufferPool::allocate(std::vector<int64_t> shape, DType dtype) {
  Tensor probe(shape, dtype, nullptr);
  if (probe.numel() < 0) throw std::invalid_argument("negative tensor shape");
  const size_t bytes = probe.bytes();
  auto storage = std::make_shared<ClStorage>(shared_from_this(), take(bytes), bytes);
  return Tensor(std::move(shape), dtype, std::move(storage));
}

cl::Buffer BufferPool::take(size_t bytes) {
  {
    std::lock_guard lock(mutex_);
    auto it = free_.find(bytes);
    if (it != free_.end() && !it->second.empty()) {
      cl::Buffer b = std::move(it->second.back());
      it->second.pop_back();
      pooled_bytes_ -= bytes;
      return b;
    }
  }
  // OpenCL rejects zero-sized buffers; empty tensors still get a (tiny) one.
  const size_t alloc_bytes = std::max<size_t>(bytes, 4);
  try {
    return cl::Buffer(context_, CL_MEM_READ_WRITE, alloc_bytes);
  } catch (const cl::Error&) {
    trim();  // the pool may hold what the driver needs; retry once without it
    return cl::Buffer(context_, CL_MEM_READ_WRITE, alloc_bytes);
  }
}

void BufferPool::recycle(cl::Buffer buffer, size_t bytes) {
  std::lock_guard lock(mutex_);
  free_[bytes].push_back(std::move(buffer));
  pooled_bytes_ += bytes;
}

uint64_t BufferPool::pooled_bytes() const {
  std::lock_guard lock(mutex_);
  return pooled_bytes_;
}

void BufferPool::trim() {
  std::lock_guard lock(mutex_);
  free_.clear();
  pooled_bytes_ = 0;
}

const cl::Buffer& device_buffer(const Tensor& t) {
  if (!t.defined()) throw std::invalid_argument("OpenCL op got an undefined tensor");
  auto* s = dynamic_cast<ClStorage*>(t.storage());
  if (!s) throw std::invalid_argument("tensor is not an OpenCL device tensor");
  return s->buffer;
}

}  // namespace sb
