#pragma once
// What a run asks of a model: the size, backend and inputs the CLI and a sweep read from the
// user, and a model's factory reads to build its Workload (models/registry.h).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace sb {

struct WorkloadRequest {
  std::string size = "small";
  std::string backend = "cpu";
  std::string device;  // OpenCL device filter; empty: the default device
  uint64_t seed = 1;
  std::filesystem::path weights;
  std::filesystem::path input;  // the model's own input file (geneformer: token ids); empty: seeded
  int64_t batch = 0;            // 0: the model's default for the size
  // A user's own checkpoint's attention heads and LayerNorm eps where the weights' shapes
  // cannot say (geneformer; 0 / nullopt: from config.json or the convention).
  int64_t heads = 0;
  std::optional<float> eps;
  // Enformer: the input length in bp and the centre tokens kept (0: the size's / derived).
  int64_t length = 0;
  int64_t target = 0;
};

}  // namespace sb
