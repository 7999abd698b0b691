#pragma once
// Enformer's relative positional features for n tokens: (2n-1) distances x R features
// (exponential decay, central mask, gamma pdf; then the same times sign(distance)).
#include <cstdint>
#include <vector>

namespace sb::enformer {

// Row p holds distance p - (n - 1). R must be a multiple of 6.
std::vector<float> positional_features(int64_t n, int64_t r);

}  // namespace sb::enformer
