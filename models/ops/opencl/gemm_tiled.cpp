// f16 / int8 weight GEMMs through the portable tiled kernel (kernels/gemm_tiled.cl).
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

void OpenCLBackend::linear_tiled(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep,
                                 int64_t m) {
  const bool int8 = w.precision == Precision::int8;
  require(w.data.dtype() == (int8 ? DType::i8 : DType::f16), "linear",
          std::string("weight data is ") + dtype_name(w.data.dtype()) + " for " +
              precision_name(w.precision));
  const Tensor* scales = int8 ? &w.scales : nullptr;
  const cl::NDRange global(round_up(w.n, 64) / 4, round_up(m, 64) / 4);
  launch(int8 ? "gemm_i8w" : "gemm_f16w", global, cl::NDRange(16, 16), x, w.data, scales,
         int8 ? 1 : 0, ep.bias, ep.bias ? 1 : 0, static_cast<int>(ep.act), ep.residual,
         ep.residual ? 1 : 0, m, w.n, w.k, y);
}

}  // namespace sb
