// Transfers into existing tensors (write, write_ids) and fill (kernels/columns.cl).
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

void OpenCLBackend::write_bytes(const void* data, size_t bytes, Tensor& t, bool blocking) {
  recorder_.refuse("it copies host memory to the device (write)");  // replay35
  // Non-blocking: the caller keeps the host memory untouched until synchronize().
  runtime_->queue().enqueueWriteBuffer(device_buffer(t), blocking ? CL_TRUE : CL_FALSE, 0, bytes,
                                       data);
  kernel_log_.host_to_device(bytes);
}

void OpenCLBackend::do_write(std::span<const float> host, Tensor& t, bool blocking) {
  write_bytes(host.data(), host.size_bytes(), t, blocking);
}

void OpenCLBackend::do_write_ids(std::span<const int32_t> host, Tensor& t, bool blocking) {
  write_bytes(host.data(), host.size_bytes(), t, blocking);
}

Tensor OpenCLBackend::upload_index(std::span<const int64_t> index) {
  std::vector<int32_t> narrow(index.size());
  for (size_t j = 0; j < index.size(); ++j) narrow[j] = to_cl_int(index[j], "column index");
  return upload_bytes(narrow.data(), narrow.size() * sizeof(int32_t),
                      {static_cast<int64_t>(narrow.size())}, DType::i32);
}

void OpenCLBackend::do_fill(Tensor& y, float value) {
  const int64_t n = y.numel();
  launch("fill", cl::NDRange(round_up(n, 256)), cl::NDRange(256), value, n, y);
}

// Sub-buffers must start at CL_DEVICE_MEM_BASE_ADDR_ALIGN (bits).
int64_t OpenCLBackend::part_alignment() const {
  const auto bits = runtime_->device().getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>();
  return std::max<int64_t>(16, static_cast<int64_t>(bits / 8 / sizeof(float)));
}

Tensor OpenCLBackend::do_part(const Tensor& flat, int64_t offset, std::vector<int64_t> shape) {
  Tensor probe(shape, DType::f32, nullptr);
  cl_buffer_region region{static_cast<size_t>(offset) * sizeof(float),
                          std::max<size_t>(probe.bytes(), sizeof(float))};
  cl::Buffer whole = device_buffer(flat);
  cl::Buffer sub = whole.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region);
  auto owner = std::shared_ptr<Storage>(flat.storage(), [keep = flat](Storage*) {});
  return Tensor(std::move(shape), DType::f32,
                std::make_shared<ClStorage>(std::move(owner), std::move(sub), probe.bytes()));
}

}  // namespace sb
