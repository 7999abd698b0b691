#pragma once
// The GEMM benchmark's sizes (docs/models.md): one square product y[M, N] = x[M, K] . W[N, K]^T,
// M = N = K: tiny (256) for tests, small (4096), full (8192, a tensor-core unit's working size).
#include <cstdint>
#include <string>
#include <vector>

namespace sb::gemm {

struct Config {
  std::string size;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
};

Config config_for(const std::string& size);  // throws on an unknown size
const std::vector<std::string>& sizes();

}  // namespace sb::gemm
