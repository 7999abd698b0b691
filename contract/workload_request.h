#pragma once
// What a run asks of a model: the size, backend and inputs the CLI and a sweep read from the
// user, and a model's factory reads to build its Workload (models/registry.h).
#include <cstdint>
#include <filesystem>
#include <string>

#include "contract/model_options.h"

namespace sb {

struct WorkloadRequest {
  std::string size = "small";
  std::string backend = "cpu";
  std::string device;  // OpenCL device filter; empty: the default device
  uint64_t seed = 1;
  std::filesystem::path weights;
  std::filesystem::path input;  // the model's own input file (--input, --data); empty: seeded
  int64_t batch = 0;            // 0: the model's default for the size
  // The options the model declared (contract/model_options.h) that were given; the model
  // parses them, and a model refuses one another model declared.
  OptionValues options;
};

}  // namespace sb
