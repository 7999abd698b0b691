#include "models/gemm/config.h"

#include <cctype>

#include "models/sizes.h"

namespace sb::gemm {

const std::vector<std::string>& sizes() {
  static const std::vector<std::string> s{"tiny", "small", "full"};
  return s;
}

std::optional<Config> parse_shape(const std::string& size) {
  // "MxNxK": three positive decimal dimensions, each small enough for an OpenCL int argument.
  int64_t dims[3] = {0, 0, 0};
  size_t at = 0;
  for (int i = 0; i < 3; ++i) {
    if (i > 0) {
      if (at >= size.size() || size[at] != 'x') return std::nullopt;
      ++at;
    }
    const size_t start = at;
    while (at < size.size() && std::isdigit(static_cast<unsigned char>(size[at])) &&
           at - start < 10)
      dims[i] = dims[i] * 10 + (size[at++] - '0');
    if (at == start || dims[i] < 1 || dims[i] > kMaxShapeDim) return std::nullopt;
  }
  if (at != size.size()) return std::nullopt;
  return Config{size, dims[0], dims[1], dims[2]};
}

Config config_for(const std::string& size) {
  if (auto shape = parse_shape(size)) return *shape;
  int64_t d = 0;
  if (size == "tiny") {
    d = 256;
  } else if (size == "small") {
    d = 4096;
  } else if (size == "full") {
    d = 8192;
  } else {
    throw_unknown_size("gemm", size, sizes(), "MxNxK");
  }
  return {size, d, d, d};
}

}  // namespace sb::gemm
