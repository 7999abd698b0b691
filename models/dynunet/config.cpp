#include "models/dynunet/config.h"

#include "models/sizes.h"

namespace sb::dynunet {

const std::vector<std::string>& sizes() {
  static const std::vector<std::string> s{"tiny", "small", "full"};
  return s;
}

Config config_for(const std::string& size, int64_t batch) {
  Config c;
  c.size = size;
  if (size == "tiny") {
    c.filters = {8, 16, 32}, c.patch = 16, c.batch = 1, c.check_steps = 4;
    // The documented lr barely moves Dice within a test's few dozen steps; the tiny size exists
    // to show that training learns, so it learns faster.
    c.lr = 1e-2f;
  } else if (size == "small") {
    c.filters = {16, 32, 64}, c.patch = 32, c.batch = 2, c.check_steps = 4;
  } else if (size == "full") {
    c.filters = {16, 32, 64}, c.patch = 64, c.batch = 8, c.check_steps = 4;
  } else {
    throw_unknown_size("dynunet", size, sizes());
  }
  if (batch > 0) c.batch = batch;
  return c;
}

}  // namespace sb::dynunet
