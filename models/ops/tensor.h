#pragma once
// A tensor is a shape, a dtype and backend-owned storage. Row-major, contiguous, no offsets:
// ops that need sub-matrices take explicit offsets and leading dimensions instead.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sb {

enum class DType : uint8_t { f32, f16, bf16, i8, i32 };

size_t dtype_size(DType d);
const char* dtype_name(DType d);

// The smallest and largest id an i32 tensor holds, with their element positions. Recorded on
// the host by Backend::upload_ids, so that ops check ids without reading device memory; no op
// writes an i32 tensor, so the record stays true for the storage's lifetime.
struct IdRange {
  int32_t lo = 0, hi = 0;
  int64_t lo_at = 0, hi_at = 0;
};

// Backends derive their own storage (host memory, cl_mem); its destructor releases the bytes
// and reports them to the backend's AllocationTracker.
struct Storage {
  virtual ~Storage() = default;
  std::optional<IdRange> ids;  // set by upload_ids only
};

class Tensor {
 public:
  Tensor() = default;
  Tensor(std::vector<int64_t> shape, DType dtype, std::shared_ptr<Storage> storage)
      : shape_(std::move(shape)), dtype_(dtype), storage_(std::move(storage)) {}

  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t dim(int i) const { return shape_.at(i < 0 ? shape_.size() + i : i); }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t numel() const;
  size_t bytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype_); }
  DType dtype() const { return dtype_; }
  bool defined() const { return storage_ != nullptr; }
  Storage* storage() const { return storage_.get(); }
  template <class S>
  S& storage_as() const {
    return static_cast<S&>(*storage_);
  }
  // Same storage under another shape with the same element count.
  Tensor reshaped(std::vector<int64_t> shape) const;
  std::string shape_string() const;

 private:
  std::vector<int64_t> shape_;
  DType dtype_ = DType::f32;
  std::shared_ptr<Storage> storage_;
};

}  // namespace sb
