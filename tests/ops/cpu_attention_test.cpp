// The CPU backend's streaming attention kernels run with blocks smaller than their sequence
// (block edges), masked keys trimmed, the bf16 block kernel and the attention on oneDNN's bf16
// matmul, each against the double reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "models/ops/cpu/attention_masked.h"
#ifdef STAGEBENCH_HAVE_DNNL
#include "models/ops/cpu/attention_masked_onednn.h"
#include "models/ops/cpu/gemm_dnnl.h"
#endif
#include "models/ops/cpu/attention_relative.h"
#include "models/ops/cpu/cpu_backend.h"
#include "tests/ops/op_case.h"
#include "tests/ops/test_env.h"

namespace sb::testing {
namespace {

TEST(OpsCpu, RelativeAttentionAcrossBlockEdges) {
  const RelAttentionInputs in({2, 37, 2, 16, 24});
  const DVec want = in.reference();
  // Blocks smaller than n, not dividing it, in both directions.
  for (auto [qb, kb] : {std::pair<int64_t, int64_t>{8, 16}, {5, 7}, {16, 4}, {64, 256}}) {
    Vec out(want.size(), -1.0f);
    cpu::rel_attention_streaming(in.s,
                                 {in.q.data(), in.k.data(), in.v.data(), in.rel_k.data(),
                                  in.content_bias.data(), in.pos_bias.data(), out.data()},
                                 qb, kb);
    EXPECT_EQ(compare({"out", out, want}), "") << "blocks " << qb << " x " << kb;
  }
}

// Q, K and V packed side by side in one [batch * n, 3 * heads * dh] buffer (the models' fused
// projection), the output [batch * n, heads * dh]: the masked-attention tests' shape.
AttentionShape packed_qkv(int64_t batch, int64_t n, int64_t heads, int64_t dh, float scale) {
  const int64_t d = heads * dh;
  AttentionShape s;
  s.batch = batch, s.n = n, s.heads = heads, s.dh = dh, s.scale = scale;
  s.ld_q = s.ld_k = s.ld_v = 3 * d, s.k_col = d, s.v_col = 2 * d, s.ld_out = d;
  return s;
}

// Item 0 loses its first 45% of keys (whole early key blocks masked before any real key
// arrives), item 1 its last 40%.
void mask_first_two_items(Vec& bias, int64_t n) {
  for (int64_t j = 0; j < n * 9 / 20; ++j) bias[j] = kMaskedLogit;
  for (int64_t j = n - n * 2 / 5; j < n; ++j) bias[n + j] = kMaskedLogit;
}

TEST(OpsCpu, MaskedAttentionAcrossBlockEdges) {
  const int64_t batch = 2, heads = 3, dh = 8, d = heads * dh;
  for (int64_t n : {37, 70}) {
    const AttentionShape s = packed_qkv(batch, n, heads, dh, 0.35f);
    const Vec qkv = random_vec(batch * n * 3 * d, 20 + n, -2, 2);
    Vec bias(batch * n, 0.0f);
    mask_first_two_items(bias, n);
    const DVec want = attention_ref(s, qkv, qkv, qkv, bias);
    for (auto [qb, kb] : {std::pair<int64_t, int64_t>{16, 8}, {5, 32}}) {
      Vec out(want.size(), -1.0f);
      cpu::masked_attention_streaming(
          s, {qkv.data(), qkv.data(), qkv.data(), bias.data(), out.data()}, qb, kb);
      EXPECT_EQ(compare({"out", out, want}), "") << "n " << n << " blocks " << qb << "x" << kb;
    }
  }
}

// The keys after an item's last unmasked key are skipped (STAGEBENCH_ATTENTION_TRIM, on by
// default): item 1 keeps 41 of 70 keys, item 2 has none unmasked (kept whole: its softmax is
// uniform over every key, as untrimmed). Trimmed and untrimmed both match the reference, across
// block edges and at the default blocks, on the threaded path too.
TEST(OpsCpu, MaskedAttentionTrimsTrailingMaskedKeys) {
  const int64_t batch = 3, n = 70, heads = 2, dh = 8, d = heads * dh;
  const AttentionShape s = packed_qkv(batch, n, heads, dh, 0.35f);
  const Vec qkv = random_vec(batch * n * 3 * d, 31, -2, 2);
  Vec bias(batch * n, 0.0f);
  for (int64_t j = 41; j < n; ++j) bias[n + j] = kMaskedLogit;
  for (int64_t j = 0; j < n; ++j) bias[2 * n + j] = kMaskedLogit;
  const DVec want = attention_ref(s, qkv, qkv, qkv, bias);
  for (const char* trim : {"on", "off"}) {
    setenv("STAGEBENCH_ATTENTION_TRIM", trim, 1);
    for (auto [qb, kb] : {std::pair<int64_t, int64_t>{16, 32},
                          {5, 64},
                          {cpu::kMaskedQueryBlock, cpu::kMaskedKeyBlock}}) {
      Vec out(want.size(), -1.0f);
      cpu::masked_attention_streaming(
          s, {qkv.data(), qkv.data(), qkv.data(), bias.data(), out.data()}, qb, kb);
      EXPECT_EQ(compare({"out", out, want}), "")
          << "trim " << trim << " blocks " << qb << "x" << kb;
    }
  }
  unsetenv("STAGEBENCH_ATTENTION_TRIM");
}

// The bf16 block kernel (reduced precision, attention_masked_bf16.cpp) against the double
// reference at bf16's tolerance, across block edges (query blocks off the 16 lanes, key blocks
// off the 6-row tiles and odd, so the last key pair is padded), trimmed and not, with head widths
// on and off the 16-float vectors; and not within fp32's tolerance (so the bf16 products ran).
// STAGEBENCH_CPU_ATTENTION_BF16=off keeps the fp32 path at the same precision.
TEST(OpsCpu, MaskedAttentionBf16AcrossBlockEdges) {
  setenv("STAGEBENCH_CPU_ATTENTION_BF16", "on", 1);  // opt-in (attention_masked.cpp)
  AttentionShape probe;
  probe.precision = Precision::bf16, probe.dh = 64;
  if (!cpu::masked_attention_uses_bf16(probe)) {
    unsetenv("STAGEBENCH_CPU_ATTENTION_BF16");
    GTEST_SKIP() << "no bf16 attention kernel in this build (needs AVX512-BF16)";
  }
  // Unset, the knob keeps the fp32 kernel.
  {
    unsetenv("STAGEBENCH_CPU_ATTENTION_BF16");
    EXPECT_FALSE(cpu::masked_attention_uses_bf16(probe));
    setenv("STAGEBENCH_CPU_ATTENTION_BF16", "on", 1);
  }
  const int64_t batch = 2, heads = 2;
  for (int64_t dh : {64, 40}) {
    for (int64_t n : {37, 70}) {
      const int64_t d = heads * dh;
      AttentionShape s = packed_qkv(batch, n, heads, dh, 1.0f / std::sqrt(dh * 1.0f));
      s.precision = Precision::bf16;
      const Vec qkv = random_vec(batch * n * 3 * d, 50 + n + dh, -2, 2);
      Vec bias(batch * n, 0.0f);
      mask_first_two_items(bias, n);
      const DVec want = attention_ref(s, qkv, qkv, qkv, bias);
      for (const char* trim : {"on", "off"}) {
        setenv("STAGEBENCH_ATTENTION_TRIM", trim, 1);
        for (auto [qb, kb] : {std::pair<int64_t, int64_t>{16, 8},
                              {5, 7},
                              {cpu::kMaskedQueryBlock, cpu::kMaskedKeyBlock}}) {
          Vec out(want.size(), -1.0f);
          cpu::masked_attention_streaming(
              s, {qkv.data(), qkv.data(), qkv.data(), bias.data(), out.data()}, qb, kb);
          const std::string where = "dh " + std::to_string(dh) + " n " + std::to_string(n) +
                                    " trim " + trim + " blocks " + std::to_string(qb) + "x" +
                                    std::to_string(kb);
          EXPECT_EQ(compare({"out", out, want, Precision::bf16}), "") << where;
          EXPECT_NE(compare({"out", out, want}), "") << where << ": fp32-exact, bf16 not used?";
        }
      }
      unsetenv("STAGEBENCH_ATTENTION_TRIM");
      setenv("STAGEBENCH_CPU_ATTENTION_BF16", "off", 1);
      EXPECT_FALSE(cpu::masked_attention_uses_bf16(s));
      Vec out(want.size(), -1.0f);
      cpu::masked_attention_streaming(
          s, {qkv.data(), qkv.data(), qkv.data(), bias.data(), out.data()});
      EXPECT_EQ(compare({"out", out, want}), "") << "dh " << dh << " n " << n << " knob off";
      setenv("STAGEBENCH_CPU_ATTENTION_BF16", "on", 1);
    }
  }
  unsetenv("STAGEBENCH_CPU_ATTENTION_BF16");
}

#ifdef STAGEBENCH_HAVE_DNNL
// The attention on oneDNN's bf16 matmul (attention_masked_onednn.cpp), run directly and through
// the backend, against the double reference at bf16's tolerance, and not within fp32's (so the
// bf16 products ran): head widths on and off oneDNN's blocks (64, 40), n off them (37, 70), the
// first item's leading keys masked, the second's trailing ones, the third's all (kept whole:
// uniform weights), trimmed and not; through the backend with separate q, k, v of wider leading
// dimensions and an output whose extra columns must keep what they held.
// STAGEBENCH_CPU_ATTENTION_ONEDNN=off leaves it.
TEST(OpsCpu, MaskedAttentionOnOneDnnBf16) {
  AttentionShape probe;
  probe.precision = Precision::bf16, probe.dh = 64;
  {
    const ScopedEnv unset("STAGEBENCH_CPU_ATTENTION_ONEDNN", "");
    EXPECT_EQ(cpu::onednn_attention_mode(), cpu::OneDnnAttention::batched);
    const ScopedEnv off("STAGEBENCH_CPU_ATTENTION_ONEDNN", "off");
    EXPECT_FALSE(cpu::masked_attention_uses_onednn(probe));
  }
  const ScopedEnv on("STAGEBENCH_CPU_ATTENTION_ONEDNN", "items");
  if (!cpu::masked_attention_uses_onednn(probe))
    GTEST_SKIP() << "oneDNN has no bf16 here: "
                 << cpu::DnnlGemm::unsupported_reason(Precision::bf16);
  probe.precision = Precision::f32;
  EXPECT_FALSE(cpu::masked_attention_uses_onednn(probe));
  const int64_t batch = 3, heads = 2;
  for (int64_t dh : {64, 40}) {
    for (int64_t n : {37, 70}) {
      const int64_t d = heads * dh;
      AttentionShape s = packed_qkv(batch, n, heads, dh, 1.0f / std::sqrt(dh * 1.0f));
      s.precision = Precision::bf16;
      const Vec qkv = random_vec(batch * n * 3 * d, 60 + n + dh, -2, 2);
      Vec bias = random_vec(batch * n, 61 + n, -0.5f, 0.5f);
      mask_first_two_items(bias, n);
      for (int64_t j = 0; j < n; ++j) bias[2 * n + j] = kMaskedLogit;
      const DVec want = attention_ref(s, qkv, qkv, qkv, bias);
      for (auto [trim, mode] : {std::pair{true, cpu::OneDnnAttention::items},
                                {false, cpu::OneDnnAttention::items},
                                {true, cpu::OneDnnAttention::batched}}) {
        const std::vector<int64_t> ends = cpu::masked_key_ends(s, bias.data(), trim);
        EXPECT_EQ(ends[1], trim ? n - n * 2 / 5 : n);
        // NaN-filled, so that a read of scratch the call did not write shows.
        std::vector<float> scratch(cpu::masked_attention_onednn_scratch(s) + 16, std::nanf(""));
        float* aligned =
            scratch.data() + (16 - reinterpret_cast<uintptr_t>(scratch.data()) % 64 / 4) % 16;
        Vec out(want.size(), -1.0f);
        cpu::masked_attention_onednn(
            s, {qkv.data(), qkv.data(), qkv.data(), bias.data(), out.data()}, ends, aligned, mode);
        const std::string where = "dh " + std::to_string(dh) + " n " + std::to_string(n) +
                                  (trim ? " trim" : " whole") +
                                  (mode == cpu::OneDnnAttention::batched ? " batched" : "");
        EXPECT_EQ(compare({"out", out, want, Precision::bf16}), "") << where;
        EXPECT_NE(compare({"out", out, want}), "") << where << ": fp32-exact, bf16 not used?";
        EXPECT_NE(cpu::masked_attention_onednn_impls(), "") << where;
      }
      // Through the backend: separate tensors, wider leading dimensions, out's extra columns kept.
      for (const char* mode : {"items", "batched"}) {
        const ScopedEnv knob("STAGEBENCH_CPU_ATTENTION_ONEDNN", mode);
        auto be = make_cpu_backend();
        AttentionShape t = s;
        t.ld_q = d + 8, t.q_col = 5, t.ld_k = d, t.k_col = 0, t.ld_v = d + 4, t.v_col = 4;
        t.ld_out = d + 3;
        const int64_t rows = batch * n;
        const Vec q = random_vec(rows * t.ld_q, 70 + n, -2, 2);
        const Vec k = random_vec(rows * t.ld_k, 71 + n, -2, 2);
        const Vec v = random_vec(rows * t.ld_v, 72 + n, -2, 2);
        const Vec out0 = random_vec(rows * t.ld_out, 73);
        Tensor out = be->upload(out0, {batch, n, t.ld_out});
        const Tensor bt = be->upload(bias, {batch, n});
        be->attention_fused(t, be->upload(q, {batch, n, t.ld_q}), be->upload(k, {batch, n, t.ld_k}),
                            be->upload(v, {batch, n, t.ld_v}), &bt, out);
        DVec bwant = attention_ref(t, q, k, v, bias);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t col = d; col < t.ld_out; ++col)
            bwant[r * t.ld_out + col] = out0[r * t.ld_out + col];
        const Vec got = be->download(out);
        EXPECT_EQ(compare({"out", got, bwant, Precision::bf16}), "") << "backend dh " << dh;
        EXPECT_NE(compare({"out", got, bwant}), "") << "backend dh " << dh << ": bf16 not used?";
      }
    }
  }
}
#endif

}  // namespace
}  // namespace sb::testing
