#include "models/ops/opencl/opencl_backend.h"

#include <algorithm>
#include <stdexcept>

#include "models/ops/opencl/clblast_tuning.h"
#include "models/ops/opencl/device_select.h"
#include "models/ops/opencl/kernel_sources.h"
#include "models/ops/knobs.h"
#include "models/ops/opencl/opencl_backend_impl.h"
#include "models/ops/opencl/weight_convert.h"

namespace sb {
namespace {

// The tiled GEMM body once per weight type, as separate kernels of the one program.
std::string tiled_gemm_variant(const char* name, const char* weight_type, const char* load) {
  return std::string("#define GEMM_NAME ") + name + "\n#define WEIGHT_T " + weight_type +
         "\n#define LOAD_WEIGHT(w, i) " + load + "\n" +
         std::string(embedded_cl_source("gemm_tiled.cl")) +
         "\n#undef GEMM_NAME\n#undef WEIGHT_T\n#undef LOAD_WEIGHT\n";
}

// The fused attention body once per variant (kFusedAttentionKernels). The widest heads keep
// their queries in local memory (query and accumulator would not both fit in registers).
std::string fused_attention_variant(const FusedAttentionKernel& k) {
  const std::string width = std::to_string(k.width);
  return std::string("#define FA_NAME ") + k.name + "\n#define FA_DH " + width +
         "\n#define FA_BQ " + std::to_string(k.queries) + "\n#define FA_TK " +
         std::to_string(k.keys) + "\n#define FA_CHUNK " + std::to_string(std::min(k.keys, 16)) +
         "\n#define FA_Q_LOCAL " + (k.width > 64 ? "1" : "0") + "\n" +
         std::string(embedded_cl_source("attention_masked.cl")) +
         "\n#undef FA_NAME\n#undef FA_DH\n#undef FA_BQ\n#undef FA_TK\n#undef FA_CHUNK\n"
         "#undef FA_Q_LOCAL\n";
}

// Everything but the NVIDIA-only kernels: one program, one build per device, holding the
// fused attention variants whose local memory the device has (a kernel declaring more may fail
// the whole program's build on some compilers).
std::string portable_source(size_t local_mem_bytes) {
  std::string s = cl_common_source();
  for (const char* file :
       {"elementwise.cl", "data_movement.cl", "norms.cl", "reductions.cl", "attention.cl",
        "attention_relative.cl", "attention_pool.cl", "columns.cl", "backward.cl", "conv3d.cl",
        "conv3d_narrow.cl", "losses.cl", "volume_chunks.cl", "volume.cl", "instance_norm.cl",
        "optimizer.cl", "conv_transpose3d.cl", "gemm_general.cl"})
    s += std::string(embedded_cl_source(file)) + "\n";
  for (const FusedAttentionKernel& k : kFusedAttentionKernels)
    if (k.local_bytes() + kCompilerLocalSlack <= local_mem_bytes) s += fused_attention_variant(k);
  s += tiled_gemm_variant("gemm_f16w", "half", "vload_half((i), (w))");
  s += tiled_gemm_variant("gemm_i8w", "char", "((float)(w)[(i)])");
  return s;
}

}  // namespace

int to_cl_int(int64_t v, const char* what) {
  if (v < 0 || v > std::numeric_limits<cl_int>::max())
    throw std::invalid_argument(std::string("OpenCL backend: ") + what + " = " + std::to_string(v) +
                                " does not fit the kernels' 32-bit indices");
  return static_cast<int>(v);
}

void OpenCLBackend::set_arg(cl::Kernel& k, cl_uint i, int64_t v) {
  k.setArg(i, static_cast<cl_int>(to_cl_int(v, "size")));
}

OpenCLBackend::OpenCLBackend(cl::Device device)
    : runtime_(std::make_shared<ClRuntime>(std::move(device))),
      pool_(std::make_shared<BufferPool>(runtime_->context())),
      events_(runtime_->queue(), kernel_log_),
      device_name_(runtime_->device_name()),
      dummy_(runtime_->context(), CL_MEM_READ_WRITE, 16) {
  kernel_log_.set_drain([this] { events_.flush(); });
  events_.set_recorder(&recorder_);  // replay35
  clone_unsupported_ = clone_kernel_unsupported(runtime_->device());
  events_at_sync_ =
      read_knob("STAGEBENCH_EVENTS_AT_SYNC", events_at_sync_, {{"1", true}, {"0", false}});
  events_.set_recording(read_on_off_knob("STAGEBENCH_CL_EVENTS"));
  library_tuning_ = apply_cached_clblast_tuning(runtime_->device());
  portable_gemm_ = portable_f32_gemm_requested();
  if (portable_gemm_)
    library_tuning_ =
        "none: CLBlast replaced by the portable gemm_general (STAGEBENCH_F32_GEMM=portable)";
  init_wgmma();  // on sm_90 only: builds and checks the wgmma kernels (gemm_wgmma.cpp)
}

OpenCLBackend::~OpenCLBackend() {
  try {
    runtime_->queue().finish();
  } catch (...) {
    // Destructors must not throw; a failed queue has nothing left to wait for.
  }
}

size_t OpenCLBackend::reduce_group() const {
  size_t wg = 256;
  while (wg > runtime_->max_work_group_size()) wg /= 2;
  return wg;
}

const cl::Program& OpenCLBackend::portable_program() {
  const std::string options = "-cl-std=CL1.2 -DREDUCE_WG=" + std::to_string(reduce_group()) +
                              " -DRA_TQ=16 -DRA_TK=16 -DRA_MAX_COLS=16";
  if (portable_source_.empty()) portable_source_ = portable_source(runtime_->local_mem_bytes());
  return runtime_->program("portable", portable_source_, options);
}

cl::Kernel& OpenCLBackend::kernel(const std::string& name) {
  if (auto it = kernels_.find(name); it != kernels_.end()) return it->second;
  faults_.before_build(name);
  return kernels_.emplace(name, cl::Kernel(portable_program(), name.c_str())).first->second;
}

uint64_t OpenCLBackend::kernel_local_mem_bytes(const std::string& name) {
  return kernel(name).getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(runtime_->device());
}

std::vector<std::string> OpenCLBackend::portable_kernel_names() {
  const std::string names = portable_program().getInfo<CL_PROGRAM_KERNEL_NAMES>();
  std::vector<std::string> out;
  for (size_t start = 0; start < names.size();) {
    size_t end = names.find(';', start);
    if (end == std::string::npos) end = names.size();
    if (end > start) out.push_back(names.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

Tensor OpenCLBackend::do_empty(std::vector<int64_t> shape, DType dtype) {
  if (!faults_.empty()) faults_.before_alloc(Tensor(shape, dtype, nullptr).bytes());
  return pool_->allocate(std::move(shape), dtype);
}

Tensor OpenCLBackend::upload_bytes(const void* data, size_t bytes, std::vector<int64_t> shape,
                                   DType dtype) {
  Tensor t = do_empty(std::move(shape), dtype);
  if (bytes > 0) {
    recorder_.refuse("it uploads host memory to the device (upload)");  // replay35
    // Blocking: the caller's host memory may go away as soon as we return.
    runtime_->queue().enqueueWriteBuffer(device_buffer(t), CL_TRUE, 0, bytes, data);
    kernel_log_.host_to_device(bytes);
  }
  return t;
}

Tensor OpenCLBackend::do_upload(std::span<const float> host, std::vector<int64_t> shape) {
  return upload_bytes(host.data(), host.size_bytes(), std::move(shape), DType::f32);
}

Tensor OpenCLBackend::do_upload_ids(std::span<const int32_t> host, std::vector<int64_t> shape) {
  return upload_bytes(host.data(), host.size_bytes(), std::move(shape), DType::i32);
}

std::vector<float> OpenCLBackend::do_download(const Tensor& t) {
  std::vector<float> host(static_cast<size_t>(t.numel()));
  recorder_.refuse("it reads device memory back to the host (download)");  // replay35
  if (!host.empty() && t.dtype() == DType::f16) {  // a half-precision stage's activations
    std::vector<uint16_t> bits(host.size());
    runtime_->queue().enqueueReadBuffer(device_buffer(t), CL_TRUE, 0, t.bytes(), bits.data());
    kernel_log_.device_to_host(t.bytes());
    for (size_t i = 0; i < bits.size(); ++i) host[i] = half_bits_to_float(bits[i]);
  } else if (!host.empty()) {
    runtime_->queue().enqueueReadBuffer(device_buffer(t), CL_TRUE, 0, t.bytes(), host.data());
    kernel_log_.device_to_host(t.bytes());
  }
  if (events_at_sync_) events_.flush();
  return host;  // else the events before the read stay pending: KernelLog::drain() reads them
}

void OpenCLBackend::synchronize() {
  recorder_.refuse("it waits for the device (synchronize)");  // replay35
  runtime_->queue().finish();  // the events stay pending: KernelLog::drain() reads them
  if (events_at_sync_) events_.flush();
}

BackendMemory OpenCLBackend::memory() {
  return {&host_tracker_, &pool_->tracker()};
}

std::unique_ptr<Backend> make_opencl_backend(const std::string& device_filter) {
  return std::make_unique<OpenCLBackend>(select_opencl_device(device_filter));
}

}  // namespace sb
