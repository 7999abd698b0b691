#pragma once
// 64-byte aligned host memory for the CPU backend's tensors. Every byte is reported to the
// backend's AllocationTracker, which the storage shares so tensors may outlive the backend.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "instrument/allocation_tracker.h"
#include "models/ops/tensor.h"

namespace sb::cpu {

class HostStorage : public Storage {
 public:
  HostStorage(size_t bytes, std::shared_ptr<AllocationTracker> tracker);
  // A view of `bytes` at `data` inside `owner` (Backend::flat_parts): allocates and tracks
  // nothing, and keeps the owner alive.
  HostStorage(std::shared_ptr<Storage> owner, void* data, size_t bytes);
  ~HostStorage() override;
  HostStorage(const HostStorage&) = delete;
  HostStorage& operator=(const HostStorage&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
  std::shared_ptr<AllocationTracker> tracker_;
  std::shared_ptr<Storage> owner_;  // set for views
};

Tensor make_host_tensor(std::vector<int64_t> shape, DType dtype,
                        const std::shared_ptr<AllocationTracker>& tracker);

// The f32 elements of a host tensor; throws when the tensor is undefined, not f32 or not ours.
float* f32_data(const Tensor& t, const char* what);
// Likewise for the i32 elements (token ids).
int32_t* i32_data(const Tensor& t, const char* what);

}  // namespace sb::cpu
