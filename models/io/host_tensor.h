#pragma once
// A parameter held on the host in fp32, as a model reads it before a backend prepares it.
#include <cstdint>
#include <vector>

namespace sb {

struct HostTensor {
  std::vector<int64_t> shape;
  std::vector<float> values;
};

}  // namespace sb
