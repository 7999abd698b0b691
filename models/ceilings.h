#pragma once
// The device's measured ceilings, for roofline fractions: the best fp32 GEMM rate the backend's
// own GEMM reaches on a large square problem, and the streaming bandwidth of an elementwise add
// (bytes read + written). Measured, never taken from a datasheet.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/ops/backend.h"

namespace sb {

struct Ceilings {
  double gemm_gflops = 0;
  double stream_gbytes_per_s = 0;
  int64_t gemm_size = 0;
  int64_t stream_elements = 0;
};

// `large` picks GPU-sized problems (4096^3 GEMM, 256 Mi elements) over CPU-sized ones.
Ceilings measure_ceilings(Backend& backend, bool large);
nlohmann::json to_json(const Ceilings& c);

// The GEMM precisions a stage looks its ceiling up by (the op layer's names: fp32, tf32, ...),
// so that a ceiling given for any other name, never to be used, is refused.
std::vector<std::string> gemm_ceiling_precisions();

}  // namespace sb
