#pragma once
// Post-training int8 calibration: the fp32 graph runs over calibration batches (synthetic cells
// from their own seed, never the measured batch) and each linear layer's input range is
// recorded per tensor; weights are quantized per output channel when the int8 model is built.
#include <cstdint>

#include <nlohmann/json.hpp>

#include "models/geneformer/model.h"

namespace sb::geneformer {

struct CalibrationSet {
  int64_t batches = 4;
  int64_t batch = 0;  // cells per batch; 0: the model's batch
  uint64_t seed = 0;
};

struct Calibration {
  InputRanges ranges;
  nlohmann::json record;  // method, set size, seed: what the result records
};

// `sw` are the int8 stage's switches; the calibration model runs the same graph in fp32.
Calibration calibrate(const Config& c, const Params& params, Backend& be, const Switches& sw,
                      const CalibrationSet& set);

}  // namespace sb::geneformer
