// The masked attention's two products on oneDNN's bf16 matmul (attention_masked_onednn.h).
//
// Why not the streaming kernels: at a reduced precision half of Geneformer small's engine-fp16
// stage on the 16-core host was the fp32 fused attention (4.65 of 10.25 ms, gfcpu37), and the
// hand-written AVX512-BF16 kernel was slower there (gfbf37). Sapphire Rapids' bf16 throughput is
// in its AMX tiles, which Debian's oneDNN 2.6 reaches only through its primitives (no ukernel
// API): so the products are matmuls over one item's heads at a time, the softmax a pass of its
// own between them. An item's scores ([heads, n, end] fp32, 4 MB for Geneformer small) stay in
// the cores' caches from one pass to the next; the bf16 operands are converted once a call.
//
// Precision, as PyTorch's bf16 SDPA on the CPU: Q (with the scale folded in), K, V and the
// normalized weights P are bf16; products accumulate in fp32; the logits, the key bias, max,
// exps and sums are fp32.
#include "models/ops/cpu/attention_masked_onednn.h"

#include <dnnl.hpp>

#include <Eigen/Core>
#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "models/ops/cpu/activation.h"
#include "models/ops/cpu/bf16_pack.h"
#include "models/ops/cpu/gemm_dnnl.h"
#include "models/ops/cpu/parallel.h"
#include "models/ops/knobs.h"

namespace sb::cpu {

namespace {

using dnnl::memory;
using DT = memory::data_type;

struct Product {
  dnnl::matmul primitive;
  std::string impl;
  bool strided_dst = false;  // the output product writes `out` itself
};

// Engine, stream and primitives made once per shape (Geneformer's items have a few distinct
// unpadded lengths: one pair of primitives each), shared by every backend of the process.
struct Primitives {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  std::mutex mutex;
  std::map<std::vector<memory::dim>, Product> cache;
  std::string last_impls;
};

Primitives& primitives() {
  static Primitives p;
  return p;
}

Product make_product(const dnnl::engine& engine, const memory::desc& src, const memory::desc& wei,
                     const memory::desc& dst) {
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, wei, dst), engine);
  return {dnnl::matmul(pd), pd.impl_info_str()};
}

// oneDNN's brgemm kernels are the ones with AMX (brg:avx512_core_amx on Sapphire Rapids); a
// strided output sent the product to its jit gemm on the VM (avx512_core_bf16, 2026-11-29).
bool is_brgemm(const std::string& impl) {
  return impl.rfind("brg", 0) == 0;
}

int64_t aligned16(int64_t floats) {
  return (floats + 15) / 16 * 16;
}

}  // namespace

bool masked_attention_uses_onednn(const AttentionShape& s) {
  const bool reduced = s.precision == Precision::bf16 || s.precision == Precision::f16;
  return reduced && DnnlGemm::unsupported_reason(Precision::bf16).empty() &&
         read_on_off_knob("STAGEBENCH_CPU_ATTENTION_ONEDNN");
}

int64_t masked_attention_onednn_scratch(const AttentionShape& s) {
  const int64_t operand = aligned16((s.batch * s.heads * s.n * s.dh + 1) / 2);
  const int64_t scores = aligned16(s.heads * s.n * s.n);
  const int64_t weights = aligned16((s.heads * s.n * s.n + 1) / 2);
  return 3 * operand + scores + weights + aligned16(s.heads * s.n * s.dh);
}

void masked_attention_onednn(const AttentionShape& s, const MaskedAttentionData& d,
                             const std::vector<int64_t>& ends, float* scratch) {
  const int64_t batch = s.batch, n = s.n, heads = s.heads, dh = s.dh;
  if (batch <= 0 || n <= 0 || heads <= 0 || dh <= 0) return;
  const int64_t item = heads * n * dh;  // bf16 elements of one item's Q (K and V at most)
  const int64_t operand = aligned16((batch * item + 1) / 2);
  auto* qb = reinterpret_cast<uint16_t*>(scratch);
  auto* kb = reinterpret_cast<uint16_t*>(scratch + operand);
  auto* vb = reinterpret_cast<uint16_t*>(scratch + 2 * operand);
  float* scores = scratch + 3 * operand;
  auto* weights = reinterpret_cast<uint16_t*>(scores + aligned16(heads * n * n));
  float* dense_out = scores + aligned16(heads * n * n) + aligned16((heads * n * n + 1) / 2);

  // Q as [item][head][query][dh] (scaled), K and V as [item][head][key < end][dh], in bf16.
  parallel_for(batch * n, 3 * heads * dh, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / n, i = r % n, e = ends[static_cast<size_t>(b)];
      const float* q = d.q + r * s.ld_q + s.q_col;
      const float* k = d.k + r * s.ld_k + s.k_col;
      const float* v = d.v + r * s.ld_v + s.v_col;
      for (int64_t h = 0; h < heads; ++h) {
        uint16_t* qo = qb + b * item + (h * n + i) * dh;
        for (int64_t c = 0; c < dh; ++c) qo[c] = to_bf16(s.scale * q[h * dh + c]);
        if (i >= e) continue;
        uint16_t* ko = kb + b * item + (h * e + i) * dh;
        uint16_t* vo = vb + b * item + (h * e + i) * dh;
        for (int64_t c = 0; c < dh; ++c) ko[c] = to_bf16(k[h * dh + c]);
        for (int64_t c = 0; c < dh; ++c) vo[c] = to_bf16(v[h * dh + c]);
      }
    }
  });

  Primitives& p = primitives();
  const std::lock_guard<std::mutex> lock(p.mutex);
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t e = ends[static_cast<size_t>(b)];
    // S = Q K^T: K's stored rows [e, dh] read as the transposed weight [dh, e] (strides 1, dh).
    const memory::desc q_md({heads, n, dh}, DT::bf16, {n * dh, dh, 1});
    const memory::desc kt_md({heads, dh, e}, DT::bf16, {e * dh, 1, dh});
    const memory::desc s_md({heads, n, e}, DT::f32, {n * e, e, 1});
    const std::vector<memory::dim> s_key{0, heads, n, e, dh};
    auto sit = p.cache.find(s_key);
    if (sit == p.cache.end())
      sit = p.cache.emplace(s_key, make_product(p.engine, q_md, kt_md, s_md)).first;
    sit->second.primitive.execute(p.stream,
                                  {{DNNL_ARG_SRC, memory(q_md, p.engine, qb + b * item)},
                                   {DNNL_ARG_WEIGHTS, memory(kt_md, p.engine, kb + b * item)},
                                   {DNNL_ARG_DST, memory(s_md, p.engine, scores)}});
    p.stream.wait();

    // P = softmax(S + bias) per query row, normalized, rounded to bf16.
    const float* bias = d.key_bias != nullptr ? d.key_bias + b * n : nullptr;
    parallel_for(heads * n, e * kExpOp, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        ArrayMap row(scores + r * e, e);
        if (bias != nullptr) row += ConstArrayMap(bias, e);
        row = (row - row.maxCoeff()).exp();
        const float inv = 1.0f / row.sum();
        uint16_t* pr = weights + r * e;
        const float* sr = scores + r * e;
        for (int64_t j = 0; j < e; ++j) pr[j] = to_bf16(sr[j] * inv);
      }
    });

    // O = P V, written into out's columns of each head (strides dh, ld_out) where oneDNN has a
    // brgemm kernel for that view; else densely and copied.
    const memory::desc p_md({heads, n, e}, DT::bf16, {n * e, e, 1});
    const memory::desc v_md({heads, e, dh}, DT::bf16, {e * dh, dh, 1});
    const memory::desc o_strided({heads, n, dh}, DT::f32, {dh, s.ld_out, 1});
    const memory::desc o_dense({heads, n, dh}, DT::f32, {n * dh, dh, 1});
    const std::vector<memory::dim> o_key{1, heads, n, e, dh, s.ld_out};
    auto oit = p.cache.find(o_key);
    if (oit == p.cache.end()) {
      Product strided = make_product(p.engine, p_md, v_md, o_strided);
      strided.strided_dst = is_brgemm(strided.impl);
      oit = p.cache
                .emplace(o_key, strided.strided_dst ? std::move(strided)
                                                    : make_product(p.engine, p_md, v_md, o_dense))
                .first;
    }
    const Product& o = oit->second;
    float* out_b = d.out + b * n * s.ld_out;
    o.primitive.execute(p.stream,
                        {{DNNL_ARG_SRC, memory(p_md, p.engine, weights)},
                         {DNNL_ARG_WEIGHTS, memory(v_md, p.engine, vb + b * item)},
                         {DNNL_ARG_DST, memory(o.strided_dst ? o_strided : o_dense, p.engine,
                                               o.strided_dst ? out_b : dense_out)}});
    p.stream.wait();
    if (!o.strided_dst) {
      parallel_for(n, heads * dh, [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i)
          for (int64_t h = 0; h < heads; ++h)
            std::copy_n(dense_out + (h * n + i) * dh, dh, out_b + i * s.ld_out + h * dh);
      });
    }
    p.last_impls = sit->second.impl + " / " + o.impl + (o.strided_dst ? "" : " (dense, copied)");
  }
}

std::string masked_attention_onednn_impls() {
  Primitives& p = primitives();
  const std::lock_guard<std::mutex> lock(p.mutex);
  return p.last_impls;
}

}  // namespace sb::cpu
