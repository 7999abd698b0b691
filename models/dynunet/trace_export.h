#pragma once
// The files a reference implementation needs to train DynUNet exactly as stagebench did
// (scripts/reference/dynunet_torch.py check): the initial parameters, the batches, the trace.
#include <cstdint>
#include <filesystem>

#include "models/dynunet/workload.h"

namespace sb::dynunet {

struct TraceSummary {
  int64_t steps = 0;
  double first_loss = 0, last_loss = 0;
};

// Trains `steps` steps of `stage` from the initial parameters (the training check's path) and
// writes into `dir`: init.safetensors (parameters under MONAI's names, the configuration as
// metadata), batches.safetensors (image.k and mask.k, [N, 1, P, P, P], for every step k),
// grads_step0.safetensors (every parameter's gradient after step 0's backward, before its
// AdamW update, under the parameters' names and shapes: the one comparison that no optimizer
// step amplifies) and trace.safetensors (loss, dice, bce [N], and every parameter after the
// last step). Throws std::invalid_argument for steps < 1.
TraceSummary export_trace(DynUnetWorkload& w, size_t stage, int64_t steps,
                          const std::filesystem::path& dir);

}  // namespace sb::dynunet
