// Which GEMM serves which precision (oneDNN for every precision where the build has it, else
// Eigen for fp32; cpu_backend_impl.h's knobs), and weight preparation.
#include <stdexcept>
#include <string>

#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/gemm_dnnl.h"
#include "models/ops/cpu/op_times.h"

namespace sb::cpu {

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

Weight CpuBackend::do_prepare_weight(std::span<const float> w, int64_t n, int64_t k, Precision p) {
#ifdef STAGEBENCH_HAVE_DNNL
  if (p != Precision::f32) return dnnl_->prepare(w, n, k, p);
#endif
  Weight weight;
  weight.data = do_upload(w, {n, k});
  weight.precision = Precision::f32;
  weight.n = n;
  weight.k = k;
  return weight;
}

void CpuBackend::do_linear(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep) {
  const OpScope op_scope(op_log(), [&] {
    return std::string("linear ") + precision_name(w.precision) + " " +
           gemm_shape(x.numel() / w.k, w.k, w.n) + (ep.bias ? " +bias" : "") +
           (ep.act != Act::none ? " +act" : "") + (ep.residual ? " +residual" : "");
  });
  if (w.precision == Precision::f32) return linear_f32(x, w, y, ep);
#ifdef STAGEBENCH_HAVE_DNNL
  if (w.precision == Precision::bf16 || w.precision == Precision::int8) {
    return dnnl_->linear(x, w, y, ep);
  }
#endif
  throw std::invalid_argument(std::string("linear: the cpu backend has no kernel for a ") +
                              precision_name(w.precision) + " weight");
}

void CpuBackend::do_linear_backward(const GemmBatch& dw_g, const GemmBatch* dx_g, const Tensor& x,
                                    const Tensor& dy, const Tensor& w, Tensor& dw, Tensor& db,
                                    Tensor* dx) {
  // The hold's promise: nothing writes dy during the op. dW and db are not dy (the front checks);
  // dx could share dy's storage only if a caller passed it so, and then dy is not held.
  const bool hold = dw_g.precision == Precision::bf16 && dx_g != nullptr &&
                    (dx == nullptr || dx->storage() != dy.storage());
  if (hold) hold_read_only(dy);
  Backend::do_linear_backward(dw_g, dx_g, x, dy, w, dw, db, dx);
  if (hold) release_read_only(dy);
}

}  // namespace sb::cpu
