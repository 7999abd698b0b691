#include "models/deepfm/config.h"

#include "models/sizes.h"

namespace sb::deepfm {

const std::vector<std::string>& sizes() {
  static const std::vector<std::string> s{"tiny", "small", "full"};
  return s;
}

Config config_for(const std::string& size, int64_t batch) {
  Config c;
  c.size = size;
  if (size == "tiny") {
    c.embed = 32, c.hidden = 64, c.layers = 2, c.batch = 32;
    // The documented lr would barely move a model this small in a test's few hundred steps;
    // the tiny size exists to show that training learns, so it learns faster.
    c.lr = 3e-3f;
    c.check_steps = 6;
  } else if (size == "small") {
    c.embed = 256, c.hidden = 512, c.layers = 2, c.batch = 256;
    c.check_steps = 8;
  } else if (size == "full") {
    c.embed = 768, c.hidden = 1024, c.layers = 2, c.batch = 64;
    c.check_steps = 8;
  } else {
    throw_unknown_size("deepfm", size, sizes());
  }
  for (int64_t h : {8, 4, 2, 1})
    if (c.embed % h == 0) {
      c.heads = h;
      break;
    }
  if (batch > 0) c.batch = batch;
  c.source = "size " + size;
  return c;
}

}  // namespace sb::deepfm
