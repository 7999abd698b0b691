// f16 / int8 weight GEMMs through the portable tiled kernel (kernels/gemm_tiled.cl), and the
// portable stand-in for CLBlast's fp32 GEMMs (kernels/gemm_general.cl).

#include "models/ops/knobs.h"
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

bool OpenCLBackend::portable_f32_gemm_requested() {
  return read_knob("STAGEBENCH_F32_GEMM", false, {{"clblast", false}, {"portable", true}});
}

void OpenCLBackend::gemm_portable(const GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c) {
  if (g.m == 0 || g.n == 0) return;
  const cl::NDRange global(round_up(g.n, 16), round_up(g.m, 16));
  // An item at a time: GemmBatched's offsets need not step evenly, and the simulator it serves
  // gains nothing from one launch.
  for (size_t i = 0; i < g.a_offsets.size(); ++i)
    launch("gemm_general", global, cl::NDRange(16, 16), g.m, g.n, g.k, g.trans_a ? 1 : 0,
           g.trans_b ? 1 : 0, g.alpha, a, g.a_offsets[i], g.lda, b, g.b_offsets[i], g.ldb, g.beta,
           c, g.c_offsets[i], g.ldc);
}

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
