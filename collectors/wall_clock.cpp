#include "collectors/wall_clock.h"

namespace sb {

void WallClock::stop() {
  const auto elapsed = std::chrono::steady_clock::now() - started_;
  samples_ns_.push_back(
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count()));
}

}  // namespace sb
