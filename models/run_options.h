#pragma once
// What every model's workload takes from a run's request (contract/workload_request.h): the
// size, the seed, the batch and a checkpoint. Each model's WorkloadOptions extends it with what is
// its own, and its registry entry copies the common part with from_request.
#include <cstdint>
#include <filesystem>
#include <string>

#include "contract/workload_request.h"

namespace sb {

struct RunOptions {
  std::string size = "small";
  uint64_t seed = 1;
  int64_t batch = 0;              // 0: the size's batch
  std::filesystem::path weights;  // a file or a folder with model.safetensors; empty: seeded
                                  // weights of the size's configuration
};

template <typename Options>
Options from_request(const WorkloadRequest& r) {
  Options o;
  RunOptions& common = o;
  common = {r.size, r.seed, r.batch, r.weights};
  return o;
}

}  // namespace sb
