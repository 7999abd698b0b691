// Attention pooling and relative attention (kernels/attention.cl).
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

// Must match the -D options of the portable program (OpenCLBackend::kernel()).
constexpr int kQueryTile = 16;
constexpr int kKeyTile = 16;
constexpr int kMaxColsPerItem = 16;

}  // namespace

void OpenCLBackend::attention_pool(const Tensor& x, const Tensor& logits, Tensor& y,
                                   bool one_pass) {
  require(
      x.rank() == 3 && x.shape() == logits.shape(), "attention_pool",
      "x " + x.shape_string() + " and logits " + logits.shape_string() + " must both be [B, L, C]");
  const int64_t batch = x.dim(0), length = x.dim(1), channels = x.dim(2);
  const int64_t half = length / 2;
  require(y.rank() == 3 && y.dim(0) == batch && y.dim(1) == half && y.dim(2) == channels,
          "attention_pool", "output " + y.shape_string() + " is not [B, L/2, C]");
  const int64_t n = y.numel();
  if (n == 0) return;
  const cl::NDRange global(round_up(n, 256)), local(256);
  if (one_pass) {
    launch("attention_pool_fused", global, local, x, logits, length, half, channels, n, y);
    return;
  }
  Tensor weights = empty({batch, 2 * half, channels});
  launch("attention_pool_weights", global, local, logits, length, half, channels, n, weights);
  launch("attention_pool_apply", global, local, x, weights, length, half, channels, n, y);
}

void OpenCLBackend::rel_shift_add(Tensor& logits, const Tensor& rel) {
  require(logits.rank() == 3 && logits.dim(1) == logits.dim(2), "rel_shift_add",
          "logits " + logits.shape_string() + " is not [BH, n, n]");
  const int64_t bh = logits.dim(0), n = logits.dim(1);
  require(rel.rank() == 3 && rel.dim(0) == bh && rel.dim(1) == n && rel.dim(2) == 2 * n - 1,
          "rel_shift_add", "rel " + rel.shape_string() + " is not [BH, n, 2n-1]");
  const int64_t total = logits.numel();
  if (total == 0) return;
  launch("rel_shift_add", cl::NDRange(round_up(total, 256)), cl::NDRange(256), logits, rel, n,
         total);
}

void OpenCLBackend::rel_attention_fused(const RelAttentionShape& s, const Tensor& q,
                                        const Tensor& k, const Tensor& v, const Tensor& rel_k,
                                        const Tensor& content_bias, const Tensor& pos_bias,
                                        Tensor& out) {
  const char* op = "rel_attention_fused";
  require(s.batch > 0 && s.n > 0 && s.heads > 0 && s.dk > 0 && s.dv > 0, op, "empty shape");
  const int64_t qk = s.batch * s.n * s.heads * s.dk;
  const int64_t vo = s.batch * s.n * s.heads * s.dv;
  require(q.numel() == qk && k.numel() == qk, op, "q, k are not [B, n, H*dk]");
  require(v.numel() == vo && out.numel() == vo, op, "v, out are not [B, n, H*dv]");
  require(rel_k.numel() == (2 * s.n - 1) * s.heads * s.dk, op, "rel_k is not [2n-1, H*dk]");
  require(content_bias.numel() == s.heads * s.dk && pos_bias.numel() == s.heads * s.dk, op,
          "content_bias/pos_bias are not [H*dk]");
  require(s.dv <= kKeyTile * kMaxColsPerItem, op,
          "dv = " + std::to_string(s.dv) + " exceeds the kernel's " +
              std::to_string(kKeyTile * kMaxColsPerItem) + " columns per head");
  const int64_t kpad = s.dk + 1;
  const size_t floats = 2 * kQueryTile * s.dk + kKeyTile * kpad + kKeyTile * s.dv +
                        (kQueryTile + kKeyTile - 1) * kpad + kQueryTile * kKeyTile;
  require(floats * sizeof(float) <= runtime_->local_mem_bytes(), op,
          "dk = " + std::to_string(s.dk) + ", dv = " + std::to_string(s.dv) + " need " +
              std::to_string(floats * sizeof(float)) + " bytes of local memory, the device has " +
              std::to_string(runtime_->local_mem_bytes()));
  auto local = [](int64_t count) { return cl::Local(static_cast<size_t>(count) * sizeof(float)); };
  const size_t tiles = static_cast<size_t>((s.n + kQueryTile - 1) / kQueryTile);
  const cl::NDRange global(tiles * kKeyTile, static_cast<size_t>(s.batch * s.heads) * kQueryTile);
  launch("rel_attention_fused", global, cl::NDRange(kKeyTile, kQueryTile), q, k, v, rel_k,
         content_bias, pos_bias, s.n, s.heads, s.dk, s.dv, out, local(kQueryTile * s.dk),
         local(kQueryTile * s.dk), local(kKeyTile * kpad), local(kKeyTile * s.dv),
         local((kQueryTile + kKeyTile - 1) * kpad), local(kQueryTile * kKeyTile));
}

}  // namespace sb
