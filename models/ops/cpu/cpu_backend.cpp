#include "models/ops/cpu/cpu_backend.h"

#include <omp.h>

#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
// The class is complete here even without oneDNN (it only has no definition then), so that
// the unique_ptr member can be destroyed.
#include "models/ops/cpu/gemm_dnnl.h"

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

CpuBackend::CpuBackend()
    : host_(std::make_shared<AllocationTracker>()),
      device_(cpu_model_name() + " (" + std::to_string(omp_get_max_threads()) +
              " OpenMP threads)") {
#ifdef STAGEBENCH_HAVE_DNNL
  dnnl_ = std::make_unique<DnnlGemm>(host_);
#endif
}

// Out of line: DnnlGemm is incomplete in the header.
CpuBackend::~CpuBackend() = default;

void expect_numel(const Tensor& t, int64_t numel, const char* op, const char* what) {
  if (!t.defined() || t.numel() != numel) {
    throw std::invalid_argument(std::string("cpu ") + op + ": " + what + " has shape " +
                                (t.defined() ? t.shape_string() : "<undefined>") + ", expected " +
                                std::to_string(numel) + " elements");
  }
}

void expect_rank(const Tensor& t, int rank, const char* op, const char* what) {
  if (!t.defined() || t.rank() != rank) {
    throw std::invalid_argument(std::string("cpu ") + op + ": " + what + " must have rank " +
                                std::to_string(rank) + ", got " +
                                (t.defined() ? t.shape_string() : "<undefined>"));
  }
}

Tensor CpuBackend::empty(std::vector<int64_t> shape, DType dtype) {
  return make_host_tensor(std::move(shape), dtype, host_);
}

Tensor CpuBackend::upload(std::span<const float> host, std::vector<int64_t> shape) {
  Tensor t = empty(std::move(shape));
  if (static_cast<size_t>(t.numel()) != host.size()) {
    throw std::invalid_argument("cpu upload: " + std::to_string(host.size()) +
                                " values for shape " + t.shape_string());
  }
  if (!host.empty()) std::memcpy(f32_data(t, "upload target"), host.data(), host.size_bytes());
  return t;
}

Tensor CpuBackend::upload_ids(std::span<const int32_t> host, std::vector<int64_t> shape) {
  Tensor t = empty(std::move(shape), DType::i32);
  if (static_cast<size_t>(t.numel()) != host.size()) {
    throw std::invalid_argument("cpu upload_ids: " + std::to_string(host.size()) +
                                " ids for shape " + t.shape_string());
  }
  if (!host.empty()) std::memcpy(i32_data(t, "upload_ids target"), host.data(), host.size_bytes());
  return t;
}

std::vector<float> CpuBackend::download(const Tensor& t) {
  const float* src = f32_data(t, "download source");
  return std::vector<float>(src, src + t.numel());
}

std::string CpuBackend::unsupported_reason(Precision p) const {
  switch (p) {
    case Precision::f32:
      return "";
    case Precision::tf32:
      return "no TF32 unit on this CPU";
    case Precision::f16:
      return "no fp16 arithmetic on this CPU (use bf16)";
    case Precision::bf16:
    case Precision::int8:
#ifdef STAGEBENCH_HAVE_DNNL
      return DnnlGemm::unsupported_reason(p);
#else
      return std::string("built without oneDNN, which the CPU's ") + precision_name(p) +
             " GEMM needs";
#endif
  }
  return "unknown precision";
}

Weight CpuBackend::prepare_weight(std::span<const float> w, int64_t n, int64_t k, Precision p) {
  if (n <= 0 || k <= 0 || static_cast<int64_t>(w.size()) != n * k) {
    throw std::invalid_argument("cpu prepare_weight: " + std::to_string(w.size()) +
                                " values for a [" + std::to_string(n) + ", " + std::to_string(k) +
                                "] weight");
  }
  if (std::string reason = unsupported_reason(p); !reason.empty()) {
    throw std::invalid_argument(std::string("cpu prepare_weight: ") + precision_name(p) +
                                " unsupported: " + reason);
  }
  if (p != Precision::f32) {
#ifdef STAGEBENCH_HAVE_DNNL
    return dnnl_->prepare(w, n, k, p);
#endif
  }
  Weight weight;
  weight.data = upload(w, {n, k});
  weight.precision = Precision::f32;
  weight.n = n;
  weight.k = k;
  return weight;
}

void CpuBackend::linear(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep) {
  if (w.precision == Precision::f32) return linear_f32(x, w, y, ep);
#ifdef STAGEBENCH_HAVE_DNNL
  if (w.precision == Precision::bf16 || w.precision == Precision::int8) {
    return dnnl_->linear(x, w, y, ep);
  }
#endif
  throw std::invalid_argument(std::string("cpu linear: no kernel for a ") +
                              precision_name(w.precision) + " weight");
}

}  // namespace cpu
}  // namespace sb
