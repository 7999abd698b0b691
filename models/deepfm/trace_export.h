#pragma once
// The files a reference implementation needs to train DeepFM exactly as stagebench did
// (scripts/reference/deepfm_torch.py check): the initial parameters, the batches, and the trace.
#include <cstdint>
#include <filesystem>

#include "models/deepfm/workload.h"

namespace sb::deepfm {

struct TraceSummary {
  int64_t steps = 0;
  double first_loss = 0, last_loss = 0;
};

// Trains `steps` steps of `stage` from the initial parameters (the training check's path) and
// writes into `dir`: init.safetensors (parameters under the reference names, the configuration
// as metadata), batches.safetensors (fields.k, outcome.k, direction.k, type.k for every step k,
// and type_weights; integers stored as F32, exact below 2^24) and trace.safetensors (loss [N],
// task_loss [N, 3], every parameter after the last step). Throws std::invalid_argument for a
// data-phase stage or steps < 1.
TraceSummary export_trace(DeepFmWorkload& w, size_t stage, int64_t steps,
                          const std::filesystem::path& dir);

}  // namespace sb::deepfm
