// Transformer-XL relative attention (Enformer's), one streaming kernel: the portable one
// (kernels/attention_relative.cl) or, where the stage allows fp16 or tf32 products on NVIDIA,
// tensor cores (kernels/attention_relative_nvidia.cl: one body, attention_relative_body.cl, per
// precision).
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

// Must match the -D options of the portable program (OpenCLBackend::kernel()).
constexpr int kQueryTile = 16;
constexpr int kKeyTile = 16;
constexpr int kMaxColsPerItem = 16;

// Only the f16 tensor-core kernel reads or writes f16 (k, v, rel_k, out).
void require_f32_operands(const RelAttentionShape& s, const Tensor& k, const Tensor& v,
                          const Tensor& rel_k, const Tensor& out) {
  for (const Tensor* t : {&k, &v, &rel_k, &out})
    if (t->dtype() != DType::f32)
      throw std::invalid_argument(std::string("rel_attention_fused: f16 operands need the f16 "
                                              "tensor-core kernel (NVIDIA, dk 64, dv a multiple "
                                              "of 16 up to 192); this call is ") +
                                  precision_name(s.precision) + ", dk " + std::to_string(s.dk) +
                                  ", dv " + std::to_string(s.dv));
}

}  // namespace

void OpenCLBackend::do_rel_attention_fused(const RelAttentionShape& s, const Tensor& q,
                                           const Tensor& k, const Tensor& v, const Tensor& rel_k,
                                           const Tensor& content_bias, const Tensor& pos_bias,
                                           Tensor& out) {
  // Must match RA_DK and RA_DV_MAX in kernels/attention_relative_nvidia.cl.
  if ((s.precision == Precision::f16 || s.precision == Precision::tf32) && s.dk == 64 &&
      s.dv % 16 == 0 && s.dv <= 192 && has_mma()) {
    rel_attention_mma(s, q, k, v, rel_k, content_bias, pos_bias, out);
    return;
  }
  require_f32_operands(s, k, v, rel_k, out);
  if (s.dv > kKeyTile * kMaxColsPerItem)
    throw std::invalid_argument("rel_attention_fused: dv = " + std::to_string(s.dv) +
                                " exceeds the OpenCL kernel's " +
                                std::to_string(kKeyTile * kMaxColsPerItem) + " columns per head");
  const int64_t kpad = s.dk + 1;
  const size_t floats = 2 * kQueryTile * s.dk + kKeyTile * kpad + kKeyTile * s.dv +
                        (kQueryTile + kKeyTile - 1) * kpad + kQueryTile * kKeyTile;
  if (floats * sizeof(float) > runtime_->local_mem_bytes())
    throw std::invalid_argument(
        "rel_attention_fused: dk = " + std::to_string(s.dk) + ", dv = " + std::to_string(s.dv) +
        " need " + std::to_string(floats * sizeof(float)) +
        " bytes of local memory, the device has " + std::to_string(runtime_->local_mem_bytes()));
  auto local = [](int64_t count) { return cl::Local(static_cast<size_t>(count) * sizeof(float)); };
  const size_t tiles = static_cast<size_t>((s.n + kQueryTile - 1) / kQueryTile);
  const cl::NDRange global(tiles * kKeyTile, static_cast<size_t>(s.batch * s.heads) * kQueryTile);
  launch("rel_attention_fused", global, cl::NDRange(kKeyTile, kQueryTile), q, k, v, rel_k,
         content_bias, pos_bias, s.n, s.heads, s.dk, s.dv, out, local(kQueryTile * s.dk),
         local(kQueryTile * s.dk), local(kKeyTile * kpad), local(kKeyTile * s.dv),
         local((kQueryTile + kKeyTile - 1) * kpad), local(kQueryTile * kKeyTile));
}

void OpenCLBackend::rel_attention_mma(const RelAttentionShape& s, const Tensor& q, const Tensor& k,
                                      const Tensor& v, const Tensor& rel_k,
                                      const Tensor& content_bias, const Tensor& pos_bias,
                                      Tensor& out) {
  // Must match RA_QUERIES and RA_THREADS in the kernels.
  constexpr size_t kQueries = 64, kThreads = 128;
  const auto i = [](int64_t x) { return static_cast<int>(x); };
  const size_t groups = (static_cast<size_t>(s.n) + kQueries - 1) / kQueries;
  const cl::NDRange global(groups * kThreads, static_cast<size_t>(s.batch * s.heads));
  if (s.precision == Precision::tf32) {  // reads the fp32 operands in place
    require_f32_operands(s, k, v, rel_k, out);
    launch_mma("rel_attention_tf32_mma", global, cl::NDRange(kThreads, 1), q, k, v, rel_k,
               content_bias, pos_bias, i(s.n), i(s.heads), i(s.dv), out, 0);
    return;
  }
  // Operands a half-precision stage's producers wrote in f16 are read in place; fp32 ones get a
  // half copy (a conversion pass each, every call).
  const auto half_of = [&](const Tensor& x) {
    if (x.dtype() == DType::f16) return x;
    Tensor h = do_empty(x.shape(), DType::f16);
    to_half(x, h, x.numel());
    return h;
  };
  const Tensor kh = half_of(k), vh = half_of(v), rh = half_of(rel_k);
  const int half_out = out.dtype() == DType::f16 ? 1 : 0;
  launch_mma("rel_attention_f16_mma", global, cl::NDRange(kThreads, 1), q, kh, vh, rh, content_bias,
             pos_bias, i(s.n), i(s.heads), i(s.dv), out, half_out);
}

}  // namespace sb
