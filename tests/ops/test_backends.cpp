#include "tests/ops/test_backends.h"

#include <map>
#include <memory>
#include <stdexcept>

#include "models/ops/cpu/cpu_backend.h"
#ifdef STAGEBENCH_HAVE_OPENCL
#include "models/ops/opencl/opencl_backend.h"
#endif

namespace sb::testing {

std::vector<std::string> backend_names() {
#ifdef STAGEBENCH_HAVE_OPENCL
  return {"cpu", "opencl"};
#else
  return {"cpu"};
#endif
}

Backend* test_backend(const std::string& name, std::string* why) {
  struct Slot {
    std::unique_ptr<Backend> backend;
    std::string why;
  };
  static std::map<std::string, Slot> slots;
  auto [it, fresh] = slots.try_emplace(name);
  Slot& slot = it->second;
  if (fresh) {
    try {
      if (name == "cpu") slot.backend = make_cpu_backend();
#ifdef STAGEBENCH_HAVE_OPENCL
      if (name == "opencl") slot.backend = make_opencl_backend("");
#endif
      if (!slot.backend) slot.why = "no backend named " + name + " in this build";
    } catch (const std::exception& e) {
      slot.why = std::string("no ") + name + " device: " + e.what();
    }
  }
  if (why) *why = slot.why;
  return slot.backend.get();
}

}  // namespace sb::testing
