#pragma once
// The GEMM benchmark's sizes (docs/models.md): one square product y[M, N] = x[M, K] . W[N, K]^T,
// M = N = K: tiny (256) for tests, small (4096), full (8192, a tensor-core unit's working size);
// or any shape as "MxNxK" (a model's own GEMM, e.g. Geneformer's 65536x768x256 QKV projection).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sb::gemm {

struct Config {
  std::string size;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
};

// Each dimension of an "MxNxK" size is at most this (kernels take int arguments, and one
// operand of 2^24 x 2^24 would not fit any device anyway).
constexpr int64_t kMaxShapeDim = int64_t{1} << 24;

Config config_for(const std::string& size);  // throws on an unknown size
// "MxNxK" -> its Config; nullopt when `size` is not of that form (or a dimension is 0 or over
// kMaxShapeDim).
std::optional<Config> parse_shape(const std::string& size);
const std::vector<std::string>& sizes();

}  // namespace sb::gemm
