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

int64_t aligned16(int64_t floats) {
  return (floats + 15) / 16 * 16;
}

}  // namespace

// The keys each product covers are padded to this many (zero K and V rows, zero weights), so that
// the bf16 pairs and AMX's 32-deep tiles need no padding copies inside oneDNN.
constexpr int64_t kKeyPad = 32;

int64_t padded(int64_t keys) {
  return (keys + kKeyPad - 1) / kKeyPad * kKeyPad;
}

bool masked_attention_uses_onednn(const AttentionShape& s) {
  const bool reduced = s.precision == Precision::bf16 || s.precision == Precision::f16;
  return reduced && DnnlGemm::unsupported_reason(Precision::bf16).empty() &&
         onednn_attention_mode() != OneDnnAttention::off;
}

int64_t masked_attention_onednn_scratch(const AttentionShape& s) {
  const int64_t np = padded(s.n);
  const int64_t operand = aligned16((s.batch * s.heads * np * s.dh + 1) / 2);
  const int64_t scores = aligned16(s.batch * s.heads * s.n * np);
  const int64_t weights = aligned16((s.batch * s.heads * s.n * np + 1) / 2);
  return 3 * operand + scores + weights + aligned16(s.batch * s.heads * s.n * s.dh);
}

void masked_attention_onednn(const AttentionShape& s, const MaskedAttentionData& d,
                             const std::vector<int64_t>& ends, float* scratch,
                             OneDnnAttention mode) {
  const int64_t batch = s.batch, n = s.n, heads = s.heads, dh = s.dh;
  if (batch <= 0 || n <= 0 || heads <= 0 || dh <= 0) return;
  const int64_t np = padded(n);
  const int64_t item = heads * np * dh;  // bf16 elements of one item's K or V at most
  const int64_t operand = aligned16((batch * item + 1) / 2);
  auto* qb = reinterpret_cast<uint16_t*>(scratch);
  auto* kb = reinterpret_cast<uint16_t*>(scratch + operand);
  auto* vb = reinterpret_cast<uint16_t*>(scratch + 2 * operand);
  float* scores = scratch + 3 * operand;
  auto* weights = reinterpret_cast<uint16_t*>(scores + aligned16(batch * heads * n * np));
  float* dense_out =
      scores + aligned16(batch * heads * n * np) + aligned16((batch * heads * n * np + 1) / 2);

  // Groups of items that share one pair of products: each item alone over its own keys, or all
  // of them at once over the longest item's keys (fewer, larger calls; more padded work).
  struct Group {
    int64_t b0, b1, keys;  // items [b0, b1), keys padded
  };
  std::vector<Group> groups;
  if (mode == OneDnnAttention::batched) {
    groups.push_back({0, batch, padded(*std::max_element(ends.begin(), ends.end()))});
  } else {
    for (int64_t b = 0; b < batch; ++b)
      groups.push_back({b, b + 1, padded(ends[static_cast<size_t>(b)])});
  }
  // Item b's K and V: [head][key < keys of its group][dh], items of a group back to back.
  std::vector<int64_t> kv_base(static_cast<size_t>(batch)), keys_of(static_cast<size_t>(batch));
  for (const Group& g : groups)
    for (int64_t b = g.b0; b < g.b1; ++b) {
      kv_base[static_cast<size_t>(b)] = g.b0 * item + (b - g.b0) * heads * g.keys * dh;
      keys_of[static_cast<size_t>(b)] = g.keys;
    }

  // Q as [item][head][query][dh] (scaled), K and V as above, in bf16; keys from an item's end
  // to its group's padded count are zero rows.
  parallel_for(batch * np, 3 * heads * dh, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / np, i = r % np, e = ends[static_cast<size_t>(b)];
      const int64_t keys = keys_of[static_cast<size_t>(b)];
      const int64_t row = b * n + i;
      for (int64_t h = 0; h < heads; ++h) {
        if (i < n) {
          const float* q = d.q + row * s.ld_q + s.q_col + h * dh;
          uint16_t* qo = qb + (b * heads + h) * n * dh + i * dh;
          for (int64_t c = 0; c < dh; ++c) qo[c] = to_bf16(s.scale * q[c]);
        }
        if (i >= keys) continue;
        uint16_t* ko = kb + kv_base[static_cast<size_t>(b)] + (h * keys + i) * dh;
        uint16_t* vo = vb + kv_base[static_cast<size_t>(b)] + (h * keys + i) * dh;
        if (i >= e) {
          std::fill_n(ko, dh, uint16_t{0});
          std::fill_n(vo, dh, uint16_t{0});
          continue;
        }
        const float* k = d.k + row * s.ld_k + s.k_col + h * dh;
        const float* v = d.v + row * s.ld_v + s.v_col + h * dh;
        for (int64_t c = 0; c < dh; ++c) ko[c] = to_bf16(k[c]);
        for (int64_t c = 0; c < dh; ++c) vo[c] = to_bf16(v[c]);
      }
    }
  });

  Primitives& p = primitives();
  const std::lock_guard<std::mutex> lock(p.mutex);
  std::string impls;
  for (const Group& g : groups) {
    const int64_t items = (g.b1 - g.b0) * heads, e = g.keys;
    // S = Q K^T: K's stored rows [e, dh] read as the transposed weight [dh, e] (strides 1, dh).
    const memory::desc q_md({items, n, dh}, DT::bf16, {n * dh, dh, 1});
    const memory::desc kt_md({items, dh, e}, DT::bf16, {e * dh, 1, dh});
    const memory::desc s_md({items, n, e}, DT::f32, {n * e, e, 1});
    const std::vector<memory::dim> s_key{0, items, n, e, dh};
    auto sit = p.cache.find(s_key);
    if (sit == p.cache.end())
      sit = p.cache.emplace(s_key, make_product(p.engine, q_md, kt_md, s_md)).first;
    sit->second.primitive.execute(
        p.stream, {{DNNL_ARG_SRC, memory(q_md, p.engine, qb + g.b0 * heads * n * dh)},
                   {DNNL_ARG_WEIGHTS, memory(kt_md, p.engine, kb + g.b0 * item)},
                   {DNNL_ARG_DST, memory(s_md, p.engine, scores)}});
    p.stream.wait();

    // P = softmax(S + bias) per query row over the item's own keys, normalized, rounded to
    // bf16; the padded keys' weights are 0.
    parallel_for(items * n, e * kExpOp, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t b = g.b0 + r / (heads * n), end = ends[static_cast<size_t>(b)];
        ArrayMap row(scores + r * e, end);
        if (d.key_bias != nullptr) row += ConstArrayMap(d.key_bias + b * n, end);
        row = (row - row.maxCoeff()).exp();
        const float inv = 1.0f / row.sum();
        uint16_t* pr = weights + r * e;
        const float* sr = scores + r * e;
        for (int64_t j = 0; j < end; ++j) pr[j] = to_bf16(sr[j] * inv);
        std::fill(pr + end, pr + e, uint16_t{0});
      }
    });

    // O = P V, densely (oneDNN's brgemm took no strided output here, nor on the host), then
    // copied into out's columns of each head.
    const memory::desc p_md({items, n, e}, DT::bf16, {n * e, e, 1});
    const memory::desc v_md({items, e, dh}, DT::bf16, {e * dh, dh, 1});
    const memory::desc o_md({items, n, dh}, DT::f32, {n * dh, dh, 1});
    const std::vector<memory::dim> o_key{1, items, n, e, dh};
    auto oit = p.cache.find(o_key);
    if (oit == p.cache.end())
      oit = p.cache.emplace(o_key, make_product(p.engine, p_md, v_md, o_md)).first;
    oit->second.primitive.execute(p.stream,
                                  {{DNNL_ARG_SRC, memory(p_md, p.engine, weights)},
                                   {DNNL_ARG_WEIGHTS, memory(v_md, p.engine, vb + g.b0 * item)},
                                   {DNNL_ARG_DST, memory(o_md, p.engine, dense_out)}});
    p.stream.wait();
    parallel_for((g.b1 - g.b0) * n, heads * dh, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t bb = r / n, i = r % n;
        float* o = d.out + ((g.b0 + bb) * n + i) * s.ld_out;
        for (int64_t h = 0; h < heads; ++h)
          std::copy_n(dense_out + ((bb * heads + h) * n + i) * dh, dh, o + h * dh);
      }
    });
    impls = sit->second.impl + " / " + oit->second.impl;
  }
  p.last_impls = impls;
}

std::string masked_attention_onednn_impls() {
  Primitives& p = primitives();
  const std::lock_guard<std::mutex> lock(p.mutex);
  return p.last_impls;
}

}  // namespace sb::cpu
