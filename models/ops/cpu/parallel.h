#pragma once
// OpenMP helpers: the process's one threading runtime (Eigen and Debian's oneDNN use libgomp).
#include <omp.h>

#include <algorithm>
#include <cstdint>

#include "models/ops/knobs.h"

namespace sb::cpu {

// Below this many element-operations a chunk is not worth a thread wake-up.
inline constexpr int64_t kParallelGrain = 1 << 15;

// parallel_for's grain: kParallelGrain, or STAGEBENCH_CPU_PARALLEL_GRAIN (4096, 8192, 16384 or
// 32768; read once), an A/B knob for the 16-core host. 8192 was not made the default: it ran
// DeepFM's fp32 stages 1.12x faster than 32768 in dfmcpu37's processes but 1.06-1.09x slower in
// cpuf38's, and Geneformer's and DynUNet's ladders 1.00-1.09x slower there; the host's spread
// from process to process (5-10%) is as large as the effect.
inline int64_t read_parallel_grain() {
  return read_knob<int64_t>("STAGEBENCH_CPU_PARALLEL_GRAIN", kParallelGrain,
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
