#include "models/ops/cpu/cpu_backend.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "models/ops/cpu/attention_masked.h"
#include "models/ops/cpu/bf16_images.h"
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/gemm_small.h"
#include "models/ops/cpu/host_pool.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/op_times.h"
#include "models/ops/cpu/parallel.h"
// The class is complete here even without oneDNN (it only has no definition then), so that
// the unique_ptr member can be destroyed.
#include "models/ops/cpu/gemm_dnnl.h"
#include "models/ops/knobs.h"

#ifndef STAGEBENCH_HAVE_DNNL
namespace sb::cpu {
struct DnnlGemm::Impl {};
DnnlGemm::~DnnlGemm() = default;  // never constructed without oneDNN; the member still needs it
}  // namespace sb::cpu
#endif

namespace sb {

std::unique_ptr<Backend> make_cpu_backend() {
  return std::make_unique<cpu::CpuBackend>();
}

namespace cpu {

namespace {

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown CPU";
}

}  // namespace

bool cpu_op_times_requested() {
  return read_knob("STAGEBENCH_CPU_OP_TIMES", false,
                   {{"on", true}, {"1", true}, {"off", false}, {"0", false}});
}

CpuBackend::CpuBackend()
    : host_(std::make_shared<AllocationTracker>()),
      device_(cpu_model_name() + " (" + std::to_string(omp_get_max_threads()) + " OpenMP threads)"),
      op_times_(cpu_op_times_requested()) {
#ifdef STAGEBENCH_HAVE_DNNL
  dnnl_ = std::make_unique<DnnlGemm>(host_);
#endif
  // "eigen" asks for Eigen's products (before cpu30 and cpu35); "onednn", the default, names
  // the current path, so a mistyped value is refused rather than timed as the default.
  // Both are read in every build, so that a bad value is refused with or without oneDNN.
  cpu30_f32_kernels_ =
      read_knob("STAGEBENCH_CPU_F32_GEMM", true, {{"onednn", true}, {"eigen", false}});
  const bool linear_on_onednn =
      read_knob("STAGEBENCH_CPU_F32_LINEAR", true, {{"onednn", true}, {"eigen", false}});
  onednn_linear_ = dnnl_ != nullptr && cpu30_f32_kernels_ && linear_on_onednn;
  gemm_bias_ = read_on_off_knob("STAGEBENCH_CPU_GEMM_BIAS");
  // Read once where they are used; read here too, so that a bad value fails the backend.
  (void)read_parallel_grain();
  (void)read_parallel_split();
  (void)read_fused_dropout();
  (void)read_sum_axis1_block();
  (void)read_dice_blocks();
  (void)HostPool::pool_requested();
  (void)read_on_off_knob("STAGEBENCH_CPU_ATTENTION_BF16");  // read at each fused attention
  (void)onednn_attention_mode();                            // likewise
  (void)read_on_off_knob("STAGEBENCH_CPU_BATCHED_GRID");    // read at each batched GEMM
  (void)read_small_items_cost();
#ifdef STAGEBENCH_HAVE_DNNL
  (void)bf16_images_requested();  // read by DnnlGemm's images above too; here for the list
  (void)read_on_off_knob("STAGEBENCH_CPU_CONV_HELD_COPY");  // read when conv3d's are made
#endif
}

// Out of line: DnnlGemm is incomplete in the header.
CpuBackend::~CpuBackend() = default;

void CpuBackend::hold_read_only(const Tensor& t) {
#ifdef STAGEBENCH_HAVE_DNNL
  if (t.defined() && t.dtype() == DType::f32 && t.numel() > 0) {
    dnnl_->hold_read_only(f32_data(t, "held tensor"), t.numel());
    conv_hold(f32_data(t, "held tensor"), true);
  }
#else
  (void)t;
#endif
}

void CpuBackend::release_read_only(const Tensor& t) {
#ifdef STAGEBENCH_HAVE_DNNL
  if (t.defined() && t.dtype() == DType::f32 && t.numel() > 0) {
    dnnl_->release_read_only(f32_data(t, "held tensor"));
    conv_hold(f32_data(t, "held tensor"), false);
  }
#else
  (void)t;
#endif
}

size_t CpuBackend::bf16_image_blocks() const {
#ifdef STAGEBENCH_HAVE_DNNL
  return dnnl_->bf16_image_blocks();
#else
  return 0;
#endif
}

Tensor CpuBackend::do_empty(std::vector<int64_t> shape, DType dtype) {
  return make_host_tensor(std::move(shape), dtype, host_);
}

Tensor CpuBackend::do_part(const Tensor& flat, int64_t offset, std::vector<int64_t> shape) {
  float* base = f32_data(flat, "flat_parts buffer") + offset;
  Tensor probe(shape, DType::f32, nullptr);
  auto view = std::make_shared<HostStorage>(
      std::shared_ptr<Storage>(flat.storage(), [keep = flat](Storage*) {}), base, probe.bytes());
  return Tensor(std::move(shape), DType::f32, std::move(view));
}

Tensor CpuBackend::do_upload(std::span<const float> host, std::vector<int64_t> shape) {
  const OpScope op_scope(op_log(), [&] { return "upload " + std::to_string(host.size()); });
  Tensor t = do_empty(std::move(shape), DType::f32);
  if (!host.empty()) std::memcpy(f32_data(t, "upload target"), host.data(), host.size_bytes());
  return t;
}

Tensor CpuBackend::do_upload_ids(std::span<const int32_t> host, std::vector<int64_t> shape) {
  Tensor t = do_empty(std::move(shape), DType::i32);
  if (!host.empty()) std::memcpy(i32_data(t, "upload_ids target"), host.data(), host.size_bytes());
  return t;
}

std::vector<float> CpuBackend::do_download(const Tensor& t) {
  const float* src = f32_data(t, "download source");
  return std::vector<float>(src, src + t.numel());
}

// Host memory: every write is complete on return, blocking or not.
void CpuBackend::do_write(std::span<const float> host, Tensor& t, bool /*blocking*/) {
  std::memcpy(f32_data(t, "write target"), host.data(), host.size_bytes());
}

void CpuBackend::do_write_ids(std::span<const int32_t> host, Tensor& t, bool /*blocking*/) {
  std::memcpy(i32_data(t, "write_ids target"), host.data(), host.size_bytes());
}

void CpuBackend::do_fill(Tensor& y, float value) {
  const OpScope op_scope(op_log(), [&] { return "fill " + std::to_string(y.numel()); });
  float* yp = f32_data(y, "fill output");
  parallel_for(y.numel(), 1, [&](int64_t i0, int64_t i1) { std::fill(yp + i0, yp + i1, value); });
}

}  // namespace cpu
}  // namespace sb
