#include "models/enformer/config.h"

#include <cmath>

#include "models/sizes.h"

namespace sb::enformer {

std::vector<int64_t> Config::filters() const {
  if (!filter_list.empty()) return filter_list;
  // enformer-pytorch's exponential_linspace_int: half_dim, then 6 steps from half_dim to dim,
  // each rounded half-to-even (Python's round) to a multiple of div.
  const double start = static_cast<double>(dim / 2);
  const double base = std::exp(std::log(static_cast<double>(dim) / start) / 5.0);
  std::vector<int64_t> f{dim / 2};
  for (int i = 0; i < 6; ++i) {
    const double x = start * std::pow(base, i) / static_cast<double>(div);
    f.push_back(static_cast<int64_t>(std::nearbyint(x)) * div);
  }
  return f;
}

const std::vector<std::string>& sizes() {
  static const std::vector<std::string> s{"tiny", "small", "full"};
  return s;
}

Config config_for(const std::string& size) {
  Config c;
  c.size = size;
  c.source = "size " + size;
  if (size == "tiny") {
    c.dim = 96, c.depth = 2, c.heads = 2, c.dk = 16, c.div = 16;
    c.input_bp = 4096, c.target = 16, c.human_out = 64, c.mouse_out = 32;
  } else if (size == "small") {
    c.dim = 384, c.depth = 4, c.heads = 4, c.dk = 64, c.div = 64;
    c.input_bp = 32768, c.target = 128, c.human_out = 5313, c.mouse_out = 1643;
  } else if (size == "full") {
    c.dim = 1536, c.depth = 11, c.heads = 8, c.dk = 64, c.div = 128;
    c.input_bp = 196608, c.target = 896, c.human_out = 5313, c.mouse_out = 1643;
  } else {
    throw_unknown_size("enformer", size, sizes());
  }
  return c;
}

}  // namespace sb::enformer
