#pragma once
// Host memory a backend copies from fastest: page-locked where the device has such memory
// (OpenCL: a CL_MEM_ALLOC_HOST_PTR buffer, mapped, which drivers such as NVIDIA's copy by DMA
// without a bounce through a pinned buffer of their own), plain memory elsewhere. A loader fills
// it, and Backend::write copies from it; the memory stays valid while the object lives.
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace sb {

class HostStaging {
 public:
  virtual ~HostStaging() = default;
  virtual std::span<std::byte> bytes() = 0;
  // "pinned (OpenCL host-mapped)" or "pageable"
  virtual std::string kind() const = 0;
};

// Plain heap memory, for backends without page-locked memory (and the cpu backend).
class PageableStaging : public HostStaging {
 public:
  explicit PageableStaging(size_t bytes) : data_(bytes) {}
  std::span<std::byte> bytes() override { return data_; }
  std::string kind() const override { return "pageable"; }

 private:
  std::vector<std::byte> data_;
};

}  // namespace sb
