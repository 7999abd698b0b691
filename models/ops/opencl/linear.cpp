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

Weight OpenCLBackend::prepare_weight(std::span<const float> w, int64_t n, int64_t k, Precision p) {
  require(n > 0 && k > 0 && static_cast<int64_t>(w.size()) == n * k, "prepare_weight",
          "weight of " + std::to_string(w.size()) + " values is not n x k = " + std::to_string(n) +
              " x " + std::to_string(k));
  if (const std::string reason = unsupported_reason(p); !reason.empty())
    throw std::invalid_argument(std::string("prepare_weight: ") + precision_name(p) +
                                " is not supported on " + device_name_ + ": " + reason);
  Weight out;
  out.precision = p;
  out.n = n;
  out.k = k;
  switch (p) {
    case Precision::f32:
    case Precision::tf32:  // the mma kernel rounds to tf32 as it loads
      out.data = upload(w, {n, k});
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
      out.scales = upload(q.scales, {n});
      break;
    }
    case Precision::bf16:
      break;  // rejected above
  }
  return out;
}

void OpenCLBackend::linear(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep) {
  require(w.data.defined() && w.k > 0, "linear", "weight is not prepared");
  require(x.numel() % w.k == 0, "linear",
          "input " + x.shape_string() + " is not a multiple of K = " + std::to_string(w.k));
  const int64_t m = x.numel() / w.k;
  require(y.numel() == m * w.n, "linear",
          "output " + y.shape_string() + " is not M x N = " + std::to_string(m) + " x " +
              std::to_string(w.n));
  require(!ep.bias || ep.bias->numel() == w.n, "linear", "bias is not [N]");
  require(!ep.residual || ep.residual->numel() == m * w.n, "linear", "residual is not [M, N]");
  require(x.storage() != y.storage(), "linear", "output must not alias the input");
  if (m == 0) return;
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
      if (has_mma() && w.calibrated())
        linear_mma(x, w, y, ep, m);
      else
        linear_tiled(x, w, y, ep, m);  // int8 weights, fp32 activations (dequantized on load)
      return;
    case Precision::bf16:
      break;
  }
  throw std::invalid_argument(std::string("linear: unsupported precision ") +
                              precision_name(w.precision));
}

}  // namespace sb
