// The NVIDIA tensor-core path: tf32 and f16 GEMMs through inline PTX mma.sync
// (kernels/gemm_mma_nvidia.cl), chosen when a compile probe shows the device takes it.
#include <algorithm>
#include <cmath>

#include "models/ops/opencl/kernel_sources.h"
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

// The smallest program that needs what the GEMM kernels need: tf32 conversion and the
// m16n8k8 tf32 mma (sm_80+). Compiled on NVIDIA platforms only.
constexpr const char* kProbeSource = R"CLC(
__kernel void mma_probe(__global float* out) {
  uint a;
  float c0 = 0.0f, c1 = 0.0f, c2 = 0.0f, c3 = 0.0f;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(a) : "f"(out[0]));
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
      : "r"(a), "r"(a), "r"(a), "r"(a), "r"(a), "r"(a));
  out[get_global_id(0)] = c0 + c1 + c2 + c3;
}
)CLC";

struct MmaVariant {
  const char* name;
  const char* weight_type;
  const char* load;     // LOAD_WEIGHT(w, i)
  const char* store_x;  // STORE_X(tile, r, kk, v)
  const char* store_w;
  const char* warp_tile;
  const char* extra_params = "";
  const char* scale_acc = "(v)";  // SCALE_ACC(v, n)
  const char* acc_type = "float";
};

std::string mma_variant(const MmaVariant& v) {
  return std::string("#define MMA_NAME ") + v.name + "\n#define WEIGHT_T " + v.weight_type +
         "\n#define LOAD_WEIGHT(w, i) " + v.load + "\n#define STORE_X " + v.store_x +
         "\n#define STORE_W " + v.store_w + "\n#define WARP_TILE " + v.warp_tile +
         "\n#define ACC_T " + v.acc_type + "\n#define EXTRA_PARAMS " + v.extra_params +
         "\n#define SCALE_ACC(v, n) " + v.scale_acc + "\n" +
         std::string(embedded_cl_source("gemm_mma_body.cl")) +
         "\n#undef MMA_NAME\n#undef WEIGHT_T\n#undef LOAD_WEIGHT\n#undef STORE_X\n"
         "#undef STORE_W\n#undef WARP_TILE\n#undef ACC_T\n#undef EXTRA_PARAMS\n#undef SCALE_ACC\n";
}

std::string mma_source() {
  return std::string(embedded_cl_source("common.cl")) + "\n" +
         std::string(embedded_cl_source("gemm_mma_nvidia.cl")) + "\n" +
         mma_variant(
             {"gemm_tf32_mma", "float", "(w)[(i)]", "STORE_TF32", "STORE_TF32", "warp_tile_tf32"}) +
         mma_variant({"gemm_f16_mma", "half", "vload_half((i), (w))", "STORE_F16", "STORE_F16",
                      "warp_tile_f16"}) +
         mma_variant({"gemm_s8_mma", "char", "(float)(w)[(i)]", "STORE_S8_X", "STORE_S8_W",
                      "warp_tile_s8",
                      ", __global const float* col_scale, float x_inv_scale, float x_scale",
                      "((v) * x_scale * col_scale[(n)])", "int"}) +
         std::string(embedded_cl_source("attention_mma_nvidia.cl")) + "\n" +
         std::string(embedded_cl_source("gemm_pack.cl"));
}

}  // namespace

bool OpenCLBackend::has_mma() const {
  if (!mma_probe_)
    mma_probe_ = runtime_->is_nvidia() && runtime_->compiles(kProbeSource, "", nullptr);
  return *mma_probe_;
}

cl::Kernel& OpenCLBackend::mma_kernel(const std::string& name) {
  if (auto it = mma_kernels_.find(name); it != mma_kernels_.end()) return it->second;
  faults_.before_build(name);
  static const std::string source = mma_source();
  // -cl-nv-maxrregcount of 64 to 128 measured no different on an H100 (Geneformer full, b32).
  const cl::Program& program =
      runtime_->program("nvidia_mma", source, "-cl-std=CL1.2 -DREDUCE_WG=256");
  return mma_kernels_.emplace(name, cl::Kernel(program, name.c_str())).first->second;
}

void OpenCLBackend::linear_mma(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep,
                               int64_t m) {
  if (!has_mma())
    throw std::invalid_argument(std::string("linear: ") + precision_name(w.precision) +
                                " needs the NVIDIA tensor-core kernels, which " + device_name_ +
                                " does not take");
  if (w.precision == Precision::int8) {
    linear_mma_s8(x, w, y, ep, m);
    return;
  }
  const bool tf32 = w.precision == Precision::tf32;
  require(w.data.dtype() == (tf32 ? DType::f32 : DType::f16), "linear",
          std::string("weight data is ") + dtype_name(w.data.dtype()) + " for " +
              precision_name(w.precision));
  // Must match MMA_BM, MMA_BN and MMA_THREADS in kernels/gemm_mma_nvidia.cl.
  constexpr size_t kTile = 128, kThreads = 256;
  const cl::NDRange global(round_up(w.n, kTile) / kTile * kThreads, round_up(m, kTile) / kTile);
  launch_mma(tf32 ? "gemm_tf32_mma" : "gemm_f16_mma", global, cl::NDRange(kThreads, 1), x, w.data,
             ep.bias, ep.bias ? 1 : 0, static_cast<int>(ep.act), ep.residual, ep.residual ? 1 : 0,
             m, w.n, w.k, y);
}

void OpenCLBackend::linear_mma_s8(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep,
                                  int64_t m) {
  require(
      w.data.dtype() == DType::i8 && w.scales.defined() && w.calibrated(), "linear",
      "the int8 tensor-core GEMM needs an int8 weight with scales and a calibrated input range");
  // Symmetric per-tensor activation scale from the calibrated range (x ~= s_x q, |q| <= 127).
  const float sx = std::max(std::abs(w.input_lo), std::abs(w.input_hi)) / 127.f;
  constexpr size_t kTile = 128, kThreads = 256;
  const cl::NDRange global(round_up(w.n, kTile) / kTile * kThreads, round_up(m, kTile) / kTile);
  launch_mma("gemm_s8_mma", global, cl::NDRange(kThreads, 1), x, w.data, ep.bias, ep.bias ? 1 : 0,
             static_cast<int>(ep.act), ep.residual, ep.residual ? 1 : 0, m, w.n, w.k, y, w.scales,
             1.f / sx, sx);
}

}  // namespace sb
