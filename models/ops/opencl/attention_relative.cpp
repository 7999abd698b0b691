// Transformer-XL relative attention (Enformer's), one streaming kernel
// (kernels/attention_relative.cl).
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

// Must match the -D options of the portable program (OpenCLBackend::kernel()).
constexpr int kQueryTile = 16;
constexpr int kKeyTile = 16;
constexpr int kMaxColsPerItem = 16;

}  // namespace

void OpenCLBackend::do_rel_attention_fused(const RelAttentionShape& s, const Tensor& q,
                                           const Tensor& k, const Tensor& v, const Tensor& rel_k,
                                           const Tensor& content_bias, const Tensor& pos_bias,
                                           Tensor& out) {
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

}  // namespace sb
