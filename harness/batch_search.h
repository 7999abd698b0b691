#pragma once
// `run --batch auto` (docs/method.md#batch-search): the largest batch whose measured memory fits
// a cap, and the batch with the best throughput, from short probes of one stage.
//
// The search is the memory-bound one frameworks use (double until it no longer fits, then
// bisect), with one change a measuring tool needs: a batch is never tried when the memory
// measured at the batches before it says it cannot fit. Memory grows about linearly with the
// batch, so after two fitting probes the next batch's peak is extrapolated from the last two; a
// batch predicted over the cap bounds the search from above without being run. That keeps the
// search from driving a CPU machine into swap or an OpenCL driver into its failure paths, and
// only a probe that ran says "fits": every batch reported as fitting was measured.
//
// The probe itself (running the model at a batch) is the caller's: the search is pure logic,
// tested on synthetic probes (tests/harness/batch_search_test.cpp).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schema/records.h"

namespace sb {

// One batch tried, or bounded by prediction.
struct BatchProbe {
  int64_t batch = 0;
  // "fits": ran, and its peak is within the cap; "over cap": ran, peak above the cap;
  // "failed": did not run (allocation failed, the device failed, the model refused the batch);
  // "predicted over cap": not run, extrapolated above the cap from the fitting probes.
  std::string outcome;
  Number items_per_s, median_ms;
  Bytes peak_bytes;  // measured, or the extrapolation for "predicted over cap"
  Text reason;       // why it failed; null otherwise
};

struct BatchSearchOptions {
  uint64_t memory_cap_bytes = 0;  // 0: no cap (only failures bound the batch)
  int64_t max_batch = 1 << 16;
  int max_probes = 20;
  // Bisection stops when the bracket is this fraction of the largest fitting batch (or 1).
  double resolution = 1.0 / 32;
};

struct BatchSearchResult {
  std::vector<BatchProbe> curve;  // every batch tried, by increasing batch
  int64_t largest_fitting = 0;    // 0: no batch fitted
  int64_t best_throughput = 0;    // the fitting batch with the most items/s (the smaller on ties)
  // Why the batch could not grow beyond largest_fitting: "memory cap", "predicted over cap",
  // "failed", "max batch", "probe budget".
  std::string limit;
  int64_t first_not_fitting = 0;  // the smallest batch known not to fit; 0 when none
};

// Called once per batch tried; fills items_per_s, median_ms and peak_bytes, or sets outcome
// "failed" with a reason. The search sets "fits" / "over cap" from the peak and the cap.
using BatchProbeFn = std::function<BatchProbe(int64_t batch)>;

// Throws std::invalid_argument for options out of range.
BatchSearchResult search_batch(const BatchProbeFn& probe, const BatchSearchOptions& options);

// The run record's "batch_search" section (docs/schema.md).
nlohmann::json batch_search_json(const BatchSearchResult& result, const BatchSearchOptions& options,
                                 const std::string& stage, const std::string& memory_basis,
                                 const std::string& cap_source);

}  // namespace sb
