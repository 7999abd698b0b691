#include "models/gemm/config.h"

#include <stdexcept>

namespace sb::gemm {

const std::vector<std::string>& sizes() {
  static const std::vector<std::string> s{"tiny", "small", "full"};
  return s;
}

Config config_for(const std::string& size) {
  int64_t d = 0;
  if (size == "tiny") {
    d = 256;
  } else if (size == "small") {
    d = 4096;
  } else if (size == "full") {
    d = 8192;
  } else {
    throw std::invalid_argument("gemm: unknown size '" + size + "' (tiny, small, full)");
  }
  return {size, d, d, d};
}

}  // namespace sb::gemm
