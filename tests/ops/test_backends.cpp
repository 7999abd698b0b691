#include "tests/ops/test_backends.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <stdexcept>

#include "models/ops/cpu/cpu_backend.h"
#ifdef STAGEBENCH_HAVE_OPENCL
#include "models/ops/opencl/opencl_backend.h"
#include "models/ops/opencl/opencl_backend_impl.h"
#endif

namespace sb::testing {

std::vector<std::string> backend_names() {
#ifdef STAGEBENCH_HAVE_OPENCL
  return {"cpu", "opencl"};
#else
  return {"cpu"};
#endif
}

namespace {

struct Slot {
  std::unique_ptr<Backend> backend;
  std::string why;
};

std::map<std::string, Slot>& slots() {
  static std::map<std::string, Slot> slots;
  return slots;
}

// The backends are destroyed at the end of the run, inside main, not by a static destructor:
// at exit, thread-local objects die first, and Oclgrind 21.10's runtime keeps its API-call stack
// in one, so releasing an OpenCL object after it corrupts the heap ("corrupted double-linked
// list" in oclgrind::Program::~Program; valgrind: an invalid write in clFinish and
// clReleaseKernel to a std::stack freed by __call_tls_dtors).
class ReleaseBackends : public ::testing::Environment {
 public:
  void TearDown() override { slots().clear(); }
};
[[maybe_unused]] ::testing::Environment* const release_backends =
    ::testing::AddGlobalTestEnvironment(new ReleaseBackends);

}  // namespace

Backend* test_backend(const std::string& name, std::string* why) {
  auto [it, fresh] = slots().try_emplace(name);
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

std::vector<std::string> program_kernels(Backend& be) {
#ifdef STAGEBENCH_HAVE_OPENCL
  if (auto* opencl = dynamic_cast<OpenCLBackend*>(&be)) return opencl->portable_kernel_names();
#endif
  return {};
}

}  // namespace sb::testing
