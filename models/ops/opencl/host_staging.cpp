// Page-locked staging memory on OpenCL: a CL_MEM_ALLOC_HOST_PTR buffer mapped once for the
// object's lifetime, the portable way to ask a driver for pinned host memory.
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

class MappedStaging : public HostStaging {
 public:
  MappedStaging(std::shared_ptr<ClRuntime> runtime, size_t bytes)
      : runtime_(std::move(runtime)),
        buffer_(runtime_->context(), CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes),
        size_(bytes) {
    data_ = static_cast<std::byte*>(
        runtime_->queue().enqueueMapBuffer(buffer_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes));
  }
  ~MappedStaging() override {
    try {
      runtime_->queue().enqueueUnmapMemObject(buffer_, data_);
      runtime_->queue().finish();
    } catch (...) {
      // Unmapping at teardown: nothing left to do with an error.
    }
  }
  std::span<std::byte> bytes() override { return {data_, size_}; }
  std::string kind() const override { return "pinned (OpenCL host-mapped)"; }

 private:
  std::shared_ptr<ClRuntime> runtime_;
  cl::Buffer buffer_;
  std::byte* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace

std::unique_ptr<HostStaging> OpenCLBackend::host_staging(size_t bytes) {
  return std::make_unique<MappedStaging>(runtime_, bytes == 0 ? 1 : bytes);
}

}  // namespace sb
