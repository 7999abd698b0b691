// BERT-style encoder ops (kernels/bert.cl) and fused masked attention
// (kernels/bert_attention.cl).
#include <algorithm>

#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

constexpr size_t kGroup = 256;

void require_f32(const char* op, const Tensor& t, const char* what) {
  require(t.dtype() == DType::f32, op,
          std::string(what) + " must be f32, got " + dtype_name(t.dtype()));
}

// Elements a strided operand must hold: the last token's row ends at col + heads * dh.
void require_strided(const char* op, const Tensor& t, const char* what, const AttentionShape& s,
                     int64_t ld, int64_t col) {
  require_f32(op, t, what);
  const int64_t width = s.heads * s.dh;
  require(ld > 0 && col >= 0 && col + width <= ld, op,
          std::string(what) + ": columns [" + std::to_string(col) + ", " +
              std::to_string(col + width) + ") do not fit its leading dimension " +
              std::to_string(ld));
  const int64_t needed = (s.batch * s.n - 1) * ld + col + width;
  require(t.numel() >= needed, op,
          std::string(what) + " " + t.shape_string() + " holds fewer than the " +
              std::to_string(needed) + " elements the shape addresses");
}

}  // namespace

void OpenCLBackend::embedding(const Tensor& table, const Tensor& ids, const Tensor* rows,
                              Tensor& y) {
  const char* op = "embedding";
  require(table.rank() == 2, op, "table " + table.shape_string() + " is not [V, D]");
  require(ids.rank() == 2, op, "ids " + ids.shape_string() + " is not [B, S]");
  require(ids.dtype() == DType::i32, op,
          std::string("ids must be i32, got ") + dtype_name(ids.dtype()));
  require_f32(op, table, "table");
  require_f32(op, y, "output");
  const int64_t vocab = table.dim(0), dim = table.dim(1);
  const int64_t batch = ids.dim(0), seq = ids.dim(1);
  require(vocab > 0, op, "empty table");
  require(y.numel() == batch * seq * dim && y.rank() >= 1 && y.dim(-1) == dim, op,
          "output " + y.shape_string() + " is not [" + std::to_string(batch) + ", " +
              std::to_string(seq) + ", " + std::to_string(dim) + "]");
  if (rows) {
    require_f32(op, *rows, "rows");
    require(rows->rank() == 2 && rows->dim(0) >= seq && rows->dim(1) == dim, op,
            "rows " + rows->shape_string() + " is not [>= " + std::to_string(seq) + ", " +
                std::to_string(dim) + "]");
  }
  const int64_t n = y.numel();
  if (n == 0) return;
  launch("embedding_gather", cl::NDRange(round_up(n, kGroup)), cl::NDRange(kGroup), table, vocab,
         ids, rows, rows ? 1 : 0, seq, dim, n, y);
}

void OpenCLBackend::add_key_bias(Tensor& logits, const Tensor& key_bias, int64_t heads) {
  const char* op = "add_key_bias";
  require(heads > 0, op, "heads must be positive");
  require(logits.rank() == 3 && logits.dim(1) == logits.dim(2), op,
          "logits " + logits.shape_string() + " is not [B*heads, n, n]");
  require(logits.dim(0) % heads == 0, op,
          "logits " + logits.shape_string() + " has no whole number of items of " +
              std::to_string(heads) + " heads");
  require_f32(op, logits, "logits");
  require_f32(op, key_bias, "key_bias");
  const int64_t batch = logits.dim(0) / heads, n = logits.dim(1);
  require(key_bias.numel() == batch * n, op,
          "key_bias " + key_bias.shape_string() + " is not [" + std::to_string(batch) + ", " +
              std::to_string(n) + "]");
  const int64_t total = logits.numel();
  if (total == 0) return;
  launch("add_key_bias", cl::NDRange(round_up(total, kGroup)), cl::NDRange(kGroup), logits,
         key_bias, heads, n, total);
}

void OpenCLBackend::add_layernorm(const Tensor& x, const Tensor& residual, const Tensor& gamma,
                                  const Tensor& beta, float eps, Tensor& y) {
  const char* op = "add_layernorm";
  require(x.rank() >= 1, op, "input needs a last dimension");
  require(residual.numel() == x.numel() && y.numel() == x.numel(), op,
          "shapes differ: x " + x.shape_string() + ", residual " + residual.shape_string() +
              ", y " + y.shape_string());
  const int64_t cols = x.dim(-1);
  require(gamma.numel() == cols && beta.numel() == cols, op,
          "gamma/beta are not [" + std::to_string(cols) + "]");
  for (const Tensor* t : {&x, &residual, &gamma, &beta, static_cast<const Tensor*>(&y)})
    require_f32(op, *t, "every operand");
  const int64_t rows = cols ? x.numel() / cols : 0;
  if (rows == 0) return;
  if (cols > 32 * 32) {  // wider than a row in registers: the residual add, then LayerNorm
    add(x, residual, y);
    layernorm(y, gamma, beta, eps, y, true);
    return;
  }
  constexpr size_t kRows = 8, kItems = 256;  // LN_ROWS, LN_LANES * LN_ROWS in kernels/bert.cl
  const size_t groups = (static_cast<size_t>(rows) + kRows - 1) / kRows;
  launch("add_layernorm_rows", cl::NDRange(groups * kItems), cl::NDRange(kItems), x, residual,
         gamma, beta, eps, static_cast<int>(cols), static_cast<int>(rows), y);
}

void OpenCLBackend::masked_mean(const Tensor& x, const Tensor& weights, Tensor& y) {
  const char* op = "masked_mean";
  require(x.rank() == 3, op, "x " + x.shape_string() + " is not [B, S, D]");
  const int64_t batch = x.dim(0), seq = x.dim(1), dim = x.dim(2);
  require(weights.numel() == batch * seq, op,
          "weights " + weights.shape_string() + " is not [" + std::to_string(batch) + ", " +
              std::to_string(seq) + "]");
  require(y.numel() == batch * dim, op,
          "output " + y.shape_string() + " is not [" + std::to_string(batch) + ", " +
              std::to_string(dim) + "]");
  require(y.storage() != x.storage() && y.storage() != weights.storage(), op,
          "output must not alias an input");
  for (const Tensor* t : {&x, &weights, static_cast<const Tensor*>(&y)})
    require_f32(op, *t, "every operand");
  const int64_t n = y.numel();
  if (n == 0) return;
  launch("masked_mean", cl::NDRange(round_up(n, kGroup)), cl::NDRange(kGroup), x, weights, seq, dim,
         n, y);
}

void OpenCLBackend::attention_fused(const AttentionShape& s, const Tensor& q, const Tensor& k,
                                    const Tensor& v, const Tensor* key_bias, Tensor& out) {
  const char* op = "attention_fused";
  require(s.batch > 0 && s.n > 0 && s.heads > 0 && s.dh > 0, op, "empty shape");
  const int widest = kFusedAttentionKernels[std::size(kFusedAttentionKernels) - 1].width;
  require(s.dh <= widest, op,
          "head width dh = " + std::to_string(s.dh) + " exceeds the " + std::to_string(widest) +
              " the kernels support");
  require_strided(op, q, "q", s, s.ld_q, s.q_col);
  require_strided(op, k, "k", s, s.ld_k, s.k_col);
  require_strided(op, v, "v", s, s.ld_v, s.v_col);
  require_strided(op, out, "out", s, s.ld_out, 0);
  for (const Tensor* in : {&q, &k, &v})
    require(out.storage() != in->storage(), op, "out must not alias q, k or v");
  if (key_bias) {
    require_f32(op, *key_bias, "key_bias");
    require(key_bias->numel() == s.batch * s.n, op,
            "key_bias " + key_bias->shape_string() + " is not [" + std::to_string(s.batch) + ", " +
                std::to_string(s.n) + "]");
  }
  // fp16 on NVIDIA tensor cores where the stage allows it (head size 64: Geneformer, BERT);
  // every other case computes in fp32.
  if (s.precision == Precision::f16 && s.dh == 64 && has_mma()) {
    attention_mma(s, q, k, v, key_bias, out);
    return;
  }
  attention_fused_portable(s, q, k, v, key_bias, out);
}

void OpenCLBackend::attention_mma(const AttentionShape& s, const Tensor& q, const Tensor& k,
                                  const Tensor& v, const Tensor* key_bias, Tensor& out) {
  // Must match FA_QUERIES, FA_KEYS and the work-group size in kernels/attention_mma_nvidia.cl.
  constexpr size_t kQueries = 128, kKeys = 64, kThreads = 256;
  const auto i = [](int64_t x) { return static_cast<int>(x); };
  const int64_t n_pad = (s.n + 63) / 64 * 64, items = s.batch * s.heads;
  Tensor kh = empty({items, n_pad, s.dh}, DType::f16);
  Tensor vt = empty({items, s.dh, n_pad}, DType::f16);
  launch_mma("attention_pack_f16",
             cl::NDRange(static_cast<size_t>(n_pad) / kKeys * kThreads, static_cast<size_t>(items)),
             cl::NDRange(kThreads, 1), k, v, i(s.n), i(n_pad), i(s.heads), i(s.ld_k), i(s.ld_v),
             i(s.k_col), i(s.v_col), kh, vt);
  const size_t groups = (static_cast<size_t>(s.n) + kQueries - 1) / kQueries;
  launch_mma("attention_f16_mma", cl::NDRange(groups * kThreads, static_cast<size_t>(items)),
             cl::NDRange(kThreads, 1), q, kh, vt, key_bias, key_bias ? 1 : 0, i(s.n), i(n_pad),
             i(s.heads), i(s.ld_q), i(s.ld_out), i(s.q_col), s.scale, out);
}

void OpenCLBackend::attention_fused_portable(const AttentionShape& s, const Tensor& q,
                                             const Tensor& k, const Tensor& v,
                                             const Tensor* key_bias, Tensor& out) {
  const FusedAttentionKernel& kernel =
      *std::find_if(std::begin(kFusedAttentionKernels), std::end(kFusedAttentionKernels),
                    [&](const FusedAttentionKernel& k) { return k.width >= s.dh; });
  const size_t queries = static_cast<size_t>(kernel.queries);
  // (batch, head) along dimension 0: some drivers cap the work-group count of the others
  // at 65535.
  const size_t query_groups = (static_cast<size_t>(s.n) + queries - 1) / queries;
  const cl::NDRange global(static_cast<size_t>(s.batch * s.heads) * queries, query_groups);
  launch("attention_fused_d" + std::to_string(kernel.width), global, cl::NDRange(queries, 1), q, k,
         v, key_bias, key_bias ? 1 : 0, s.n, s.heads, s.dh, s.scale, s.ld_q, s.ld_k, s.ld_v,
         s.ld_out, s.q_col, s.k_col, s.v_col, out);
}

}  // namespace sb
