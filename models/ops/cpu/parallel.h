#pragma once
// OpenMP helpers: the process's one threading runtime (Eigen and Debian's oneDNN use libgomp).
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <utility>

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

// STAGEBENCH_CPU_PARALLEL_SPLIT: how parallel_for hands out its chunks.
//   grain (default): chunks of at least the grain, as many as four a thread, dealt round-robin
//          by OpenMP's static schedule (the path before dfm40);
//   even:  an op the grain path runs in parallel, if big enough for two threads or more
//          (kEvenGrain element-operations each), gives thread t the t-th of T equal contiguous
//          ranges (16-item aligned for cheap items), walked in the grain's chunks, so that
//          consecutive ops over tensors of one length touch the same elements on the same core.
//          On the 16-core host (15 spinning threads, dfm40's call 4, one op-table process each)
//          DeepFM's ops other than products summed 2.28 and 2.26 ms a step (baseline,
//          preallocated-loss) against 2.70 and 2.71 in main's binary and 2.69 and 2.39 on the
//          grain path of the same binary. In alternating ladders (dfm40's call 5, three rounds)
//          main's step over its: 0.945, 1.154 and 1.050, the grain path of the same binary
//          0.954-1.056, inside the host's spread between processes, so not the default. Its
//          first form (call 3: a team of `parts` threads, and ops the grain path
//          runs inline split too) ran the step 1.37x slower.
// Read once.
enum class ParallelSplit { grain, even };
inline ParallelSplit read_parallel_split() {
  return read_knob("STAGEBENCH_CPU_PARALLEL_SPLIT", ParallelSplit::grain,
                   {{"grain", ParallelSplit::grain}, {"even", ParallelSplit::even}});
}
inline ParallelSplit parallel_split() {
  static const ParallelSplit split = read_parallel_split();
  return split;
}
// Element-operations a thread is given at least under `even`.
inline constexpr int64_t kEvenGrain = 8192;

// Calls body(begin, end) over [0, n) in contiguous chunks, in parallel when the total work
// (n * cost_per_item element-operations) is worth it, dealt as `split` says. Runs inline inside
// a parallel region.
template <class Body>
void parallel_for_as(ParallelSplit split, int64_t n, int64_t cost_per_item, Body&& body) {
  if (n <= 0) return;
  const int64_t threads = omp_get_max_threads();
  const int64_t cost = std::max<int64_t>(1, cost_per_item);
  const int64_t min_items = std::max<int64_t>(1, parallel_grain() / cost);
  // A few chunks per thread so uneven rows still balance; never chunks below the grain.
  const int64_t per_chunk = std::max(min_items, (n + threads * 4 - 1) / (threads * 4));
  const int64_t chunks = (n + per_chunk - 1) / per_chunk;
  if (chunks <= 1 || threads <= 1 || omp_in_parallel()) {
    body(int64_t{0}, n);
    return;
  }
  if (split == ParallelSplit::even) {
    const int64_t parts = std::min(threads, n * cost / kEvenGrain);
    if (parts > 1) {
      const int64_t align = cost < 16 && n >= 16 * parts ? 16 : 1;
      // The whole team, and only ops the grain path runs in parallel too: the first form asked
      // for num_threads(parts) and split ops the grain path runs inline, and on the host (call
      // 3) that ran cross_entropy 0.04 -> 0.38-0.93 ms, add 0.07 -> 0.28, dropout 0.17 -> 0.39.
      // Threads past `parts` have no range; the ranges come from the team's real size, so that
      // a smaller team than asked still covers [0, n).
#pragma omp parallel
      {
        const int64_t p = std::min<int64_t>(parts, omp_get_num_threads());
        const int64_t t = omp_get_thread_num();
        if (t < p) {
          const int64_t lo = n * t / p / align * align;
          const int64_t hi = t + 1 == p ? n : n * (t + 1) / p / align * align;
          for (int64_t i = lo; i < hi; i += per_chunk) body(i, std::min(hi, i + per_chunk));
        }
      }
      return;
    }
  }
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    body(c * per_chunk, std::min(n, (c + 1) * per_chunk));
  }
}

// parallel_for with the process's split (STAGEBENCH_CPU_PARALLEL_SPLIT).
template <class Body>
void parallel_for(int64_t n, int64_t cost_per_item, Body&& body) {
  parallel_for_as(parallel_split(), n, cost_per_item, std::forward<Body>(body));
}

}  // namespace sb::cpu
