#pragma once
// `stagebench infer enformer`: one forward on the user's own input and weights, every output
// head written out, so the port can be checked against another framework on real data.
#include <filesystem>
#include <memory>
#include <string>

#include "models/ops/backend.h"

namespace sb::enformer {

struct InferRequest {
  std::filesystem::path weights;  // empty: seeded random weights (seed)
  std::filesystem::path input;    // .npy or .safetensors: one-hot [B,L,4]/[L,4] or tokens [B,L]/[L]
  std::filesystem::path output;   // .safetensors: embeddings, human, mouse
  std::string stage = "original";
  std::string size;    // empty: the size of the input's length, else (with weights) full's
  int64_t target = 0;  // centre tokens kept; 0: config.json's or derived (checkpoint.h)
  std::filesystem::path export_weights;  // also write the weights used (reference names)
  uint64_t seed = 1;
};

struct InferSummary {
  std::string size;
  int64_t batch = 0;
  int64_t length = 0;
  std::string stage;
  std::string config;  // describe()'s line
  // The first NaN or Inf of the outputs (first_non_finite), "" when all are finite: the output
  // is written all the same, and the command fails (exit 1) naming it.
  std::string non_finite;
};

InferSummary run_inference(const InferRequest& request, std::unique_ptr<Backend> backend);

}  // namespace sb::enformer
