// The bf16 block kernel of the masked attention (see attention_masked_bf16.h).
//
// Per key block: K is converted to bf16 rows once, V to bf16 with its key pairs interleaved, and
// the scaled query block to bf16 d-pairs once per task; every product is then a VDPBF16PS (two
// bf16 multiplies summed into an fp32 lane). Queries run along the 16 lanes: S^T = K Q^T
// broadcasts a (k[j][2t], k[j][2t+1]) pair from K's stored row, and O^T += V^T P^T broadcasts
// a (v[2p][d], v[2p+1][d]) pair, so neither K nor V is transposed; the softmax over keys is then
// elementwise across rows of S^T. The logits, the exps, the running max and sum and the
// accumulator stay fp32; P is rounded to bf16 (nearest even) only as the second product's
// operand, as PyTorch's CPU flash attention does.
#include "models/ops/cpu/attention_masked_bf16.h"

#include <algorithm>
#include <cstring>
#include <limits>

#if defined(__AVX512BF16__) && defined(__AVX512BW__)
#define SB_MASKED_BF16 1
#include <immintrin.h>

#include "models/ops/cpu/bf16_pack.h"  // to_bf16: nearest even, as VCVTNEPS2BF16
#endif

namespace sb::cpu {

MaskedAttentionBf16Workspace::MaskedAttentionBf16Workspace(int64_t query_block, int64_t key_block,
                                                           int64_t dh)
    : qp_cols((query_block + 15) / 16 * 16),
      q_pairs(static_cast<size_t>(dh * qp_cols)),
      k(static_cast<size_t>((key_block + 1) / 2 * 2 * dh)),
      v_pairs(static_cast<size_t>((key_block + 1) / 2 * 2 * dh)),
      scores(static_cast<size_t>((key_block + 1) / 2 * 2 * qp_cols)),
      p_pairs(static_cast<size_t>((key_block + 1) / 2 * 2 * qp_cols)),
      acc(static_cast<size_t>(dh * qp_cols)),
      row_max(static_cast<size_t>(qp_cols)),
      row_sum(static_cast<size_t>(qp_cols)) {}

#ifndef SB_MASKED_BF16

bool masked_attention_bf16_built() {
  return false;
}

void attend_query_block_bf16(const AttentionShape&, const MaskedAttentionData&, int64_t, int64_t,
                             int64_t, int64_t, int64_t, int64_t, MaskedAttentionBf16Workspace&) {}

#else

bool masked_attention_bf16_built() {
  return true;
}

namespace {

// n floats to bf16.
void convert_row(const float* src, int64_t n, float scale, uint16_t* dst) {
  const __m512 sv = _mm512_set1_ps(scale);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256bh h = _mm512_cvtneps_pbh(_mm512_mul_ps(_mm512_loadu_ps(src + i), sv));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), reinterpret_cast<const __m256i&>(h));
  }
  for (; i < n; ++i) dst[i] = to_bf16(src[i] * scale);
}

// 16 floats of a and of b to 32 bf16, a0 b0 a1 b1 ...: one key pair of 16 lanes.
__m512i interleave_bf16(__m512 a, __m512 b) {
  static const __m512i kIndex = [] {
    alignas(64) uint16_t idx[32];
    for (int k = 0; k < 32; ++k) idx[k] = static_cast<uint16_t>((k % 2) * 16 + k / 2);
    return _mm512_load_si512(idx);
  }();
  const __m512bh t = _mm512_cvtne2ps_pbh(b, a);  // lanes 0-15 from a, 16-31 from b
  return _mm512_permutexvar_epi16(kIndex, reinterpret_cast<const __m512i&>(t));
}

// exp(x) for x <= 0 (a logit less the running max): 2^(x log2 e) as 2^n (VSCALEFPS) times a
// degree-6 polynomial of the fraction in [-0.5, 0.5] (relative error ~1e-7, far below P's bf16
// rounding), about half Eigen's pexp's instructions; the softmax's exps are a third of the
// block's instructions. Below -87 (and -inf, the first block's old max) it returns exp(-87), a
// normal float negligible beside the max key's weight 1, as Eigen's clamped exp does.
__m512 exp_nonpositive(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(-87.0f));
  const __m512 t = _mm512_mul_ps(x, _mm512_set1_ps(1.4426950408889634f));
  const __m512 n = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512 f = _mm512_sub_ps(t, n);
  __m512 p = _mm512_set1_ps(1.5403530393381606e-4f);
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.3333558146428443e-3f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(9.6181291076284772e-3f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(5.5504108664821580e-2f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(2.4022650695910071e-1f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(6.9314718055994531e-1f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(p, n);
}

__m512bh as_bh(__m512i x) {
  return reinterpret_cast<__m512bh&>(x);
}

uint32_t load_pair(const uint16_t* p) {
  uint32_t u;
  std::memcpy(&u, p, sizeof u);
  return u;
}

// S^T rows [j, j + R), query lanes [c, c + 16 C): over dh / 2 d-pairs.
struct QkTile {
  const uint16_t* k;  // row j of the bf16 key block, dh wide
  const uint16_t* q;  // q_pairs at column c
  float* s;           // scores at row j, column c
  int64_t dh, qp;
};

template <int R, int C>
void qk_tile(const QkTile& a) {
  __m512 acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc[r][c] = _mm512_setzero_ps();
  for (int64_t t = 0; t < a.dh / 2; ++t) {
    __m512i qv[C];
    for (int c = 0; c < C; ++c) qv[c] = _mm512_loadu_si512(a.q + (t * a.qp + c * 16) * 2);
    for (int r = 0; r < R; ++r) {
      const __m512i kb = _mm512_set1_epi32(static_cast<int>(load_pair(a.k + r * a.dh + 2 * t)));
      for (int c = 0; c < C; ++c) acc[r][c] = _mm512_dpbf16_ps(acc[r][c], as_bh(qv[c]), as_bh(kb));
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) _mm512_storeu_ps(a.s + r * a.qp + c * 16, acc[r][c]);
}

// O^T rows [d, d + R), query lanes [c, c + 16 C) += over `pairs` key pairs.
struct PvTile {
  const uint16_t* v;  // v_pairs at d
  const uint16_t* p;  // p_pairs at column c
  float* o;           // acc at row d, column c
  int64_t dh, qp, pairs;
};

template <int R, int C>
void pv_tile(const PvTile& a) {
  __m512 acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc[r][c] = _mm512_loadu_ps(a.o + r * a.qp + c * 16);
  for (int64_t jp = 0; jp < a.pairs; ++jp) {
    __m512i pv[C];
    for (int c = 0; c < C; ++c) pv[c] = _mm512_loadu_si512(a.p + (jp * a.qp + c * 16) * 2);
    for (int r = 0; r < R; ++r) {
      const __m512i vb = _mm512_set1_epi32(static_cast<int>(load_pair(a.v + (jp * a.dh + r) * 2)));
      for (int c = 0; c < C; ++c) acc[r][c] = _mm512_dpbf16_ps(acc[r][c], as_bh(pv[c]), as_bh(vb));
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) _mm512_storeu_ps(a.o + r * a.qp + c * 16, acc[r][c]);
}

// 6 rows x 4 vectors: 24 accumulators, 4 operand vectors and a broadcast in 32 registers.
constexpr int kRows = 6, kCols = 4;

#define SB_ROW(f, r) \
  { f<r, 1>, f<r, 2>, f<r, 3>, f<r, 4> }
#define SB_TABLE(f) \
  { SB_ROW(f, 1), SB_ROW(f, 2), SB_ROW(f, 3), SB_ROW(f, 4), SB_ROW(f, 5), SB_ROW(f, 6) }
using QkFn = void (*)(const QkTile&);
using PvFn = void (*)(const PvTile&);
constexpr QkFn kQk[kRows][kCols] = SB_TABLE(qk_tile);
constexpr PvFn kPv[kRows][kCols] = SB_TABLE(pv_tile);
#undef SB_TABLE
#undef SB_ROW

}  // namespace

void attend_query_block_bf16(const AttentionShape& s, const MaskedAttentionData& d, int64_t b,
                             int64_t h, int64_t i0, int64_t bq, int64_t kb, int64_t key_end,
                             MaskedAttentionBf16Workspace& w) {
  const int64_t n = s.n, dh = s.dh, qp = w.qp_cols, half = dh / 2;
  // The scaled queries, d-pairs across the query lanes; padding lanes are zero queries whose
  // outputs are never stored.
  {
    uint16_t* row = w.k.data();  // scratch: the K block is converted after
    std::fill(w.q_pairs.begin(), w.q_pairs.end(), uint16_t{0});
    for (int64_t i = 0; i < bq; ++i) {
      convert_row(d.q + (b * n + i0 + i) * s.ld_q + s.q_col + h * dh, dh, s.scale, row);
      for (int64_t t = 0; t < half; ++t) std::memcpy(&w.q_pairs[(t * qp + i) * 2], row + 2 * t, 4);
    }
  }
  std::fill(w.row_max.begin(), w.row_max.end(), -std::numeric_limits<float>::infinity());
  std::fill(w.row_sum.begin(), w.row_sum.end(), 0.0f);
  std::fill(w.acc.begin(), w.acc.end(), 0.0f);

  for (int64_t j0 = 0; j0 < key_end; j0 += kb) {
    const int64_t bk = std::min(kb, key_end - j0), pairs = (bk + 1) / 2;
    const float* k_src = d.k + (b * n + j0) * s.ld_k + s.k_col + h * dh;
    const float* v_src = d.v + (b * n + j0) * s.ld_v + s.v_col + h * dh;
    for (int64_t j = 0; j < bk; ++j) convert_row(k_src + j * s.ld_k, dh, 1.0f, &w.k[j * dh]);
    // V's key pairs interleaved; an odd block's last pair is completed by a zero row.
    for (int64_t jp = 0; jp < pairs; ++jp) {
      const float* va = v_src + 2 * jp * s.ld_v;
      const float* vb = 2 * jp + 1 < bk ? va + s.ld_v : nullptr;
      uint16_t* dst = &w.v_pairs[jp * dh * 2];
      int64_t x = 0;
      for (; x + 16 <= dh; x += 16)
        _mm512_storeu_si512(dst + 2 * x,
                            interleave_bf16(_mm512_loadu_ps(va + x),
                                            vb ? _mm512_loadu_ps(vb + x) : _mm512_setzero_ps()));
      for (; x < dh; ++x) {
        dst[2 * x] = to_bf16(va[x]);
        dst[2 * x + 1] = vb ? to_bf16(vb[x]) : uint16_t{0};
      }
    }
    // S^T = K Q^T.
    for (int64_t j = 0; j < bk; j += kRows) {
      const int r = static_cast<int>(std::min<int64_t>(kRows, bk - j));
      for (int64_t c = 0; c < qp; c += 16 * kCols) {
        const int cv = static_cast<int>(std::min<int64_t>(kCols, (qp - c) / 16));
        kQk[r - 1][cv - 1]({&w.k[j * dh], &w.q_pairs[c * 2], &w.scores[j * qp + c], dh, qp});
      }
    }
    // The online softmax, 16 queries at a time down the key rows.
    const float* bias = d.key_bias != nullptr ? d.key_bias + b * n + j0 : nullptr;
    for (int64_t c = 0; c < qp; c += 16) {
      const __m512 old_max = _mm512_loadu_ps(&w.row_max[c]);
      __m512 m = old_max;
      for (int64_t j = 0; j < bk; ++j) {
        float* sr = &w.scores[j * qp + c];
        __m512 x = _mm512_loadu_ps(sr);
        if (bias != nullptr) {
          x = _mm512_add_ps(x, _mm512_set1_ps(bias[j]));
          _mm512_storeu_ps(sr, x);
        }
        m = _mm512_max_ps(m, x);
      }
      // The first block's rescale is exp(-inf) against a zero sum and accumulator; masked logits
      // are finite (kMaskedLogit), so no inf - inf occurs.
      const __m512 rescale = exp_nonpositive(_mm512_sub_ps(old_max, m));
      __m512 sum = _mm512_setzero_ps();
      for (int64_t jp = 0; jp < pairs; ++jp) {
        const __m512 p0 =
            exp_nonpositive(_mm512_sub_ps(_mm512_loadu_ps(&w.scores[2 * jp * qp + c]), m));
        const __m512 p1 = 2 * jp + 1 < bk
                              ? exp_nonpositive(_mm512_sub_ps(
                                    _mm512_loadu_ps(&w.scores[(2 * jp + 1) * qp + c]), m))
                              : _mm512_setzero_ps();
        sum = _mm512_add_ps(sum, _mm512_add_ps(p0, p1));
        _mm512_storeu_si512(&w.p_pairs[(jp * qp + c) * 2], interleave_bf16(p0, p1));
      }
      _mm512_storeu_ps(&w.row_sum[c],
                       _mm512_fmadd_ps(_mm512_loadu_ps(&w.row_sum[c]), rescale, sum));
      _mm512_storeu_ps(&w.row_max[c], m);
      if (j0 > 0)
        for (int64_t x = 0; x < dh; ++x) {
          float* o = &w.acc[x * qp + c];
          _mm512_storeu_ps(o, _mm512_mul_ps(_mm512_loadu_ps(o), rescale));
        }
    }
    // O^T += V^T P^T.
    for (int64_t x = 0; x < dh; x += kRows) {
      const int r = static_cast<int>(std::min<int64_t>(kRows, dh - x));
      for (int64_t c = 0; c < qp; c += 16 * kCols) {
        const int cv = static_cast<int>(std::min<int64_t>(kCols, (qp - c) / 16));
        kPv[r - 1][cv - 1](
            {&w.v_pairs[x * 2], &w.p_pairs[c * 2], &w.acc[x * qp + c], dh, qp, pairs});
      }
    }
  }
  float* out = d.out + (b * n + i0) * s.ld_out + h * dh;
  for (int64_t i = 0; i < bq; ++i) {
    const float inv = 1.0f / w.row_sum[i];
    for (int64_t x = 0; x < dh; ++x) out[i * s.ld_out + x] = w.acc[x * qp + i] * inv;
  }
}

#endif

}  // namespace sb::cpu
