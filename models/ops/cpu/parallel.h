#pragma once
// OpenMP helpers: the process's one threading runtime (Eigen and Debian's oneDNN use libgomp).
#include <omp.h>

#include <algorithm>
#include <cstdint>

#include "models/ops/knobs.h"

namespace sb::cpu {

// Below this many element-operations a task is not worth a thread wake-up (the batched GEMMs'
// and the masked attention's test whether to go parallel at all).
inline constexpr int64_t kParallelGrain = 1 << 15;

// parallel_for's smallest chunk by default: 8192 since cpuf38 (kParallelGrain before). On the
// 16-core host 32768 left a cheap op of DeepFM's 131,072 elements in 4 chunks (4 busy threads of
// 16) and its LayerNorms over 1,024 rows of 256 in 8 (dfmcpu37, cpuf38).
inline constexpr int64_t kParallelForGrain = 1 << 13;

// parallel_for's grain: kParallelForGrain, or STAGEBENCH_CPU_PARALLEL_GRAIN (4096, 8192, 16384
// or 32768, the grain before cpuf38; read once), an A/B knob for the 16-core host.
inline int64_t read_parallel_grain() {
  return read_knob<int64_t>("STAGEBENCH_CPU_PARALLEL_GRAIN", kParallelForGrain,
                            {{"4096", 4096}, {"8192", 8192}, {"16384", 16384}, {"32768", 32768}});
}
inline int64_t parallel_grain() {
  static const int64_t grain = read_parallel_grain();
  return grain;
}

// Rough costs in element-operations for `parallel_for`'s cost_per_item, so that transcendental
// ops split into threads sooner than cheap ones.
inline constexpr int64_t kCheapOp = 1;
inline constexpr int64_t kExpOp = 8;

// Calls body(begin, end) over [0, n) in contiguous chunks, in parallel when the total work
// (n * cost_per_item element-operations) is worth it. Runs inline inside a parallel region.
template <class Body>
void parallel_for(int64_t n, int64_t cost_per_item, Body&& body) {
  if (n <= 0) return;
  const int64_t threads = omp_get_max_threads();
  const int64_t min_items =
      std::max<int64_t>(1, parallel_grain() / std::max<int64_t>(1, cost_per_item));
  // A few chunks per thread so uneven rows still balance; never chunks below the grain.
  const int64_t per_chunk = std::max(min_items, (n + threads * 4 - 1) / (threads * 4));
  const int64_t chunks = (n + per_chunk - 1) / per_chunk;
  if (chunks <= 1 || threads <= 1 || omp_in_parallel()) {
    body(int64_t{0}, n);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    body(c * per_chunk, std::min(n, (c + 1) * per_chunk));
  }
}

}  // namespace sb::cpu
