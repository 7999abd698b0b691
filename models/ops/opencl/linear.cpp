// Which GEMM kernel serves which precision, and weight preparation.
#include <cstring>

#include "models/ops/opencl/opencl_backend_impl.h"
#include "models/ops/opencl/weight_convert.h"

namespace sb {

std::string OpenCLBackend::unsupported_reason(Precision p) const {
  switch (p) {
    case Precision::f32:
    case Precision::f16:
    case Precision::int8:
      return "";
    case Precision::tf32:
      return has_mma() ? "" : "device has no TF32 tensor cores (no mma.sync tf32)";
    case Precision::bf16:
      return "use fp16 on OpenCL";
  }
  return "unknown precision";
}

Weight OpenCLBackend::do_prepare_weight(std::span<const float> w, int64_t n, int64_t k,
                                        Precision p) {
  Weight out;
  out.precision = p;
  out.n = n;
  out.k = k;
  switch (p) {
    case Precision::f32:
    case Precision::tf32:  // the mma kernel rounds to tf32 as it loads
      out.data = do_upload(w, {n, k});
      break;
    case Precision::f16: {
      std::vector<uint16_t> bits(w.size());
      for (size_t i = 0; i < w.size(); ++i) bits[i] = float_to_half_bits(w[i]);
      out.data = upload_bytes(bits.data(), bits.size() * 2, {n, k}, DType::f16);
      break;
    }
    case Precision::int8: {
      const QuantizedRows q = quantize_rows_int8(w, n, k);
      out.data = upload_bytes(q.values.data(), q.values.size(), {n, k}, DType::i8);
      out.scales = do_upload(q.scales, {n});
      break;
    }
    case Precision::bf16:
      break;  // unsupported: the front has refused it
  }
  return out;
}

void OpenCLBackend::do_linear(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep) {
  const int64_t m = x.numel() / w.k;
  // f16 activations (issue 27) in or out: only the f16 and int8 tensor-core pipelines read and
  // write them (int8 quantizes the halves: gemm_mma.cpp).
  const bool half_pipeline = (w.precision == Precision::f16 || w.precision == Precision::int8) &&
                             has_mma() && gemm_pipelined(w.precision, w.k);
  if ((x.dtype() == DType::f16 || y.dtype() == DType::f16) && !half_pipeline)
    throw std::invalid_argument(std::string("linear: f16 activations need the f16 or int8 "
                                            "tensor-core pipeline (NVIDIA, K a multiple of 8 or "
                                            "16), not ") +
                                precision_name(w.precision) + " on " + device_name_);
  switch (w.precision) {
    case Precision::f32:
      linear_clblast(x, w, y, ep, m);
      return;
    case Precision::tf32:
      linear_mma(x, w, y, ep, m);
      return;
    case Precision::f16:
      if (has_mma())
        linear_mma(x, w, y, ep, m);
      else
        linear_tiled(x, w, y, ep, m);
      return;
    case Precision::int8:
      // Tensor cores with a calibrated input range, or with the input's own range found per call
      // where the pipeline takes K; else int8 weights dequantized on load, fp32 activations.
      if (has_mma() && (w.calibrated() || gemm_pipelined(Precision::int8, w.k)))
        linear_mma(x, w, y, ep, m);
      else
        linear_tiled(x, w, y, ep, m);
      return;
    case Precision::bf16:
      break;
  }
  throw std::invalid_argument(std::string("linear: unsupported precision ") +
                              precision_name(w.precision));
}

}  // namespace sb
