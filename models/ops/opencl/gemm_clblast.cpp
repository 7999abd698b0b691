// fp32 GEMMs through CLBlast, timed as one span per call (see event_log.h).
#include <clblast.h>

#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

void check(clblast::StatusCode status, const char* routine) {
  if (status != clblast::StatusCode::kSuccess)
    throw std::runtime_error(std::string("CLBlast ") + routine + " failed with status " +
                             std::to_string(static_cast<int>(status)));
}

}  // namespace

void OpenCLBackend::linear_clblast(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep,
                                   int64_t m) {
  const bool residual_is_y = ep.residual && ep.residual->storage() == y.storage();
  // A residual that is y itself folds into the GEMM as beta = 1 (C = y), but only without an
  // activation: act must apply before the residual is added. With one, the GEMM writes a
  // scratch buffer so that y still holds the residual when the epilogue reads it.
  const bool residual_in_gemm = residual_is_y && ep.act == Act::none;
  const bool needs_scratch = residual_is_y && !residual_in_gemm;
  Tensor scratch = needs_scratch ? empty(y.shape()) : Tensor();
  Tensor& gemm_out = needs_scratch ? scratch : y;
  cl_command_queue queue = runtime_->queue()();
  events_.begin_span();
  const auto status = clblast::Gemm<float>(
      clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kYes,
      static_cast<size_t>(m), static_cast<size_t>(w.n), static_cast<size_t>(w.k), 1.0f,
      device_buffer(x)(), 0, static_cast<size_t>(w.k), device_buffer(w.data)(), 0,
      static_cast<size_t>(w.k), residual_in_gemm ? 1.0f : 0.0f, device_buffer(gemm_out)(), 0,
      static_cast<size_t>(w.n), &queue, nullptr);
  events_.end_span("clblast_gemm");
  check(status, "Gemm");

  const Tensor* residual = residual_in_gemm ? nullptr : ep.residual;
  if (!ep.bias && ep.act == Act::none && !residual) return;
  const int64_t total = y.numel();
  launch("gemm_epilogue", cl::NDRange(round_up(total, 256)), cl::NDRange(256), gemm_out, ep.bias,
         ep.bias ? 1 : 0, static_cast<int>(ep.act), residual, residual ? 1 : 0, w.n, total, y);
}

void OpenCLBackend::do_gemm_batched(const GemmBatch& g, const Tensor& a, const Tensor& b,
                                    Tensor& c) {
  if (g.precision != Precision::f32)
    throw std::invalid_argument(std::string("gemm_batched: ") + precision_name(g.precision) +
                                " products are not implemented on OpenCL (f32 only)");
  const size_t count = g.a_offsets.size();
  const std::vector<size_t> ao(g.a_offsets.begin(), g.a_offsets.end());
  const std::vector<size_t> bo(g.b_offsets.begin(), g.b_offsets.end());
  const std::vector<size_t> co(g.c_offsets.begin(), g.c_offsets.end());
  const std::vector<float> alphas(count, g.alpha), betas(count, g.beta);
  const auto op = [](bool t) { return t ? clblast::Transpose::kYes : clblast::Transpose::kNo; };
  cl_command_queue queue = runtime_->queue()();
  events_.begin_span();
  const auto status = clblast::GemmBatched<float>(
      clblast::Layout::kRowMajor, op(g.trans_a), op(g.trans_b), static_cast<size_t>(g.m),
      static_cast<size_t>(g.n), static_cast<size_t>(g.k), alphas.data(), device_buffer(a)(),
      ao.data(), static_cast<size_t>(g.lda), device_buffer(b)(), bo.data(),
      static_cast<size_t>(g.ldb), betas.data(), device_buffer(c)(), co.data(),
      static_cast<size_t>(g.ldc), count, &queue, nullptr);
  events_.end_span("clblast_gemm_batched");
  check(status, "GemmBatched");
}

}  // namespace sb
