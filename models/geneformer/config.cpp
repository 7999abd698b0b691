#include "models/geneformer/config.h"

#include "models/sizes.h"

namespace sb::geneformer {

const std::vector<std::string>& sizes() {
  static const std::vector<std::string> s{"tiny", "small", "full"};
  return s;
}

Config config_for(const std::string& size, int64_t batch) {
  Config c;
  c.size = size;
  if (size == "tiny") {
    c.layers = 2, c.hidden = 64, c.heads = 4, c.intermediate = 128;
    c.vocab = 1024, c.max_positions = 256, c.tokens = 128, c.batch = 2;
  } else if (size == "small" || size == "full") {
    c.layers = 6, c.hidden = 256, c.heads = 4, c.intermediate = 512;
    c.vocab = 25426, c.max_positions = 2048;
    c.tokens = size == "small" ? 512 : 2048;
    c.batch = size == "small" ? 4 : 32;
  } else {
    throw_unknown_size("geneformer", size, sizes());
  }
  if (batch > 0) c.batch = batch;
  c.source = c.heads_from = c.eps_from = "size " + size;
  return c;
}

}  // namespace sb::geneformer
