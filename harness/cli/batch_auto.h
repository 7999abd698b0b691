#pragma once
// `run MODEL --batch auto [--memory-cap BYTES]` (docs/method.md#batch-search): before a backend's
// ladder, the batch search of harness/batch_search.h with probes that run the job's search stage
// for a short time at each batch through the same JobRunner. The ladder then runs at the
// throughput-best batch, and the run record keeps the search in its "batch_search" section.
//
// Memory is what the run records per stage: the backend's device buffers on OpenCL
// (device_peak_bytes), the model's host tensors on the CPU (host_tensor_peak_bytes, not the RSS,
// which the allocator and the OS blur). A probe's peak is the larger of its stages' (stage 0
// runs beside the searched stage, as in every run). Without --memory-cap the cap is 90% of the
// OpenCL device's global memory, or 80% of the host's available memory: the rest is what the
// driver, the kernels and the process itself need beside the tensors.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/batch_search.h"
#include "harness/cli/job.h"

namespace sb::cli {

struct BatchAutoResult {
  int64_t batch = 0;       // the batch the ladder runs at: the throughput-best
  nlohmann::json section;  // the run record's "batch_search"
};

// Searches one backend's batch (job.request.backend names one backend). cap_bytes 0: the
// machine's default above. Throws std::invalid_argument when the model takes no batch or batch 1
// is over the cap, std::runtime_error when batch 1 failed on the device, and lets RunStopped
// through.
BatchAutoResult find_batch(JobRunner& runner, const Job& job, uint64_t cap_bytes, bool quiet);

}  // namespace sb::cli
