#include "models/ops/cpu/gemm_small.h"

#include <omp.h>

#include <algorithm>
#include <cstdint>

#include "models/ops/cpu/bf16_pack.h"
#include "models/ops/cpu/parallel.h"
#include "models/ops/knobs.h"

namespace sb::cpu {

namespace {

constexpr int64_t kMaxCells = 1024, kMaxMacs = 16384;

// R: operands rounded to bf16 as they are read (the bf16 product, exact in f32).
template <bool R>
inline float load(const float* p) {
  if constexpr (R) return round_to_bf16(*p);
  return *p;
}

// One item. With A's rows and B's columns both running along k (A plain, B transposed), each
// output is a dot product; otherwise rows of C accumulate A(i, p) times B's row p.
template <bool TA, bool TB, bool R>
void item(const GemmBatch& g, const float* a, const float* b, float* c) {
  const int64_t m = g.m, n = g.n, k = g.k, lda = g.lda, ldb = g.ldb;
  float acc[kMaxCells];
  if constexpr (!TA && TB) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const float* ar = a + i * lda;
        const float* br = b + j * ldb;
        float s = 0;
#pragma omp simd reduction(+ : s)
        for (int64_t p = 0; p < k; ++p) s += load<R>(ar + p) * load<R>(br + p);
        acc[i * n + j] = s;
      }
  } else {
    std::fill_n(acc, m * n, 0.0f);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p) {
        const float av = load<R>(TA ? a + p * lda + i : a + i * lda + p);
        float* row = acc + i * n;
#pragma omp simd
        for (int64_t j = 0; j < n; ++j)
          row[j] += av * load<R>(TB ? b + j * ldb + p : b + p * ldb + j);
      }
  }
  // alpha and beta in locals: read through g, every store to C might have changed them (C is a
  // float*), so the loops reloaded them each element and did not vectorize.
  const float alpha = g.alpha, beta = g.beta;
  const int64_t ldc = g.ldc;
  for (int64_t i = 0; i < m; ++i) {
    float* ci = c + i * ldc;
    const float* ai = acc + i * n;
    if (beta == 0.0f) {
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) ci[j] = alpha * ai[j];
    } else {
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) ci[j] = alpha * ai[j] + beta * ci[j];
    }
  }
}

// What parallel_for is told an item costs. An item's multiply-adds alone under-count it: its
// operands were written by the op before on other cores, and moving them costs more than the
// arithmetic on them. Counted by multiply-adds, DeepFM small's baseline FM items (256 dot
// products of 256, 256 rank-one updates of 256) made 2 chunks a call, two threads each
// reading 256 KB of the others' caches: 17.5 us a call on the 16-core host
// (results/h200-host/cpuf38-2026-11-29, op table), about 5 single-threaded on the 2-core VM.
// With each element read or written weighed as kTrafficCost multiply-adds, the FM items make
// 19 and 29 chunks of 14 and 9 items, and the attention's 2,048 items of 4 x 4 x 32 (4 x 32 x 4)
// 64 chunks of 32 rather than 32 of 64.
// STAGEBENCH_CPU_SMALL_ITEMS_COST=macs: the multiply-adds alone (the split before).
constexpr int64_t kTrafficCost = 4;

bool traffic_cost() {
  static const bool on = read_small_items_cost();
  return on;
}

int64_t item_cost(const GemmBatch& g) {
  const int64_t macs = g.m * g.n * g.k;
  if (!traffic_cost()) return macs;
  const int64_t elements = g.m * g.k + g.k * g.n + g.m * g.n * (g.beta == 0.0f ? 1 : 2);
  return macs + kTrafficCost * elements;
}

template <bool TA, bool TB, bool R>
void items(const GemmBatch& g, const float* a, const float* b, float* c) {
  const int64_t count = static_cast<int64_t>(g.a_offsets.size());
  parallel_for(count, item_cost(g), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i)
      item<TA, TB, R>(g, a + g.a_offsets[i], b + g.b_offsets[i], c + g.c_offsets[i]);
  });
}

template <bool R>
void dispatch(const GemmBatch& g, const float* a, const float* b, float* c) {
  if (g.trans_a) {
    g.trans_b ? items<true, true, R>(g, a, b, c) : items<true, false, R>(g, a, b, c);
  } else {
    g.trans_b ? items<false, true, R>(g, a, b, c) : items<false, false, R>(g, a, b, c);
  }
}

}  // namespace

bool read_small_items_cost() {
  return read_knob<bool>("STAGEBENCH_CPU_SMALL_ITEMS_COST", true,
                         {{"traffic", true}, {"macs", false}});
}

bool small_items(const GemmBatch& g) {
  return g.m * g.n <= kMaxCells && g.m * g.n * g.k <= kMaxMacs;
}

void gemm_small_items(const GemmBatch& g, const float* a, const float* b, float* c,
                      bool bf16_operands) {
  bf16_operands ? dispatch<true>(g, a, b, c) : dispatch<false>(g, a, b, c);
}

}  // namespace sb::cpu
