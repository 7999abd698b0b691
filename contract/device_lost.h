#pragma once
// Thrown by a backend whose device has gone away (reset, unplugged, a driver fault, or the
// fault-injection switch's "lost:N"): nothing run on that backend can succeed any more. The
// runner (harness/runner.cpp) fails the backend's remaining stages with this reason and keeps
// what was measured before, instead of trying every stage against a dead device.
#include <stdexcept>
#include <string>

namespace sb {

class DeviceLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace sb
