#include "models/ops/cpu/host_storage.h"

#include <algorithm>
#include <new>
#include <stdexcept>
#include <string>

#include "models/ops/cpu/host_pool.h"

namespace sb::cpu {

namespace {
constexpr size_t kAlignment = 64;
}

HostStorage::HostStorage(size_t bytes, std::shared_ptr<AllocationTracker> tracker)
    : tracker_(std::move(tracker)) {
  // aligned_alloc wants a multiple of the alignment; an empty tensor still gets one line.
  bytes_ = std::max(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
  data_ = HostPool::process().take(bytes_, kAlignment);
  if (data_ == nullptr) throw std::bad_alloc();
  if (tracker_) tracker_->allocated(bytes_);
}

HostStorage::HostStorage(std::shared_ptr<Storage> owner, void* data, size_t bytes)
    : data_(data), bytes_(bytes), owner_(std::move(owner)) {}

HostStorage::~HostStorage() {
  if (owner_) return;
  HostPool::process().give(data_, bytes_);
  if (tracker_) tracker_->released(bytes_);
}

Tensor make_host_tensor(std::vector<int64_t> shape, DType dtype,
                        const std::shared_ptr<AllocationTracker>& tracker) {
  for (int64_t d : shape) {
    if (d < 0) throw std::invalid_argument("cpu backend: negative dimension in tensor shape");
  }
  Tensor probe(shape, dtype, nullptr);
  auto storage = std::make_shared<HostStorage>(probe.bytes(), tracker);
  return Tensor(std::move(shape), dtype, std::move(storage));
}

namespace {

void* host_data(const Tensor& t, DType want, const char* what) {
  if (!t.defined())
    throw std::invalid_argument(std::string("cpu backend: ") + what + " is undefined");
  if (t.dtype() != want) {
    throw std::invalid_argument(std::string("cpu backend: ") + what + " must be " +
                                dtype_name(want) + ", got " + dtype_name(t.dtype()));
  }
  auto* host = dynamic_cast<HostStorage*>(t.storage());
  if (host == nullptr) {
    throw std::invalid_argument(std::string("cpu backend: ") + what +
                                " does not live in this backend's host memory");
  }
  return host->data();
}

}  // namespace

float* f32_data(const Tensor& t, const char* what) {
  return static_cast<float*>(host_data(t, DType::f32, what));
}

int32_t* i32_data(const Tensor& t, const char* what) {
  return static_cast<int32_t*>(host_data(t, DType::i32, what));
}

}  // namespace sb::cpu
