#pragma once
// The OpenCL backend the OpenCL-only op tests share (opencl_internals_test.cpp,
// opencl_conv_internals_test.cpp): one fixture class, so that their TEST_Fs form one suite.
#include <gtest/gtest.h>

#include <string>

#include "models/ops/opencl/opencl_backend_impl.h"
#include "tests/ops/test_backends.h"

namespace sb::testing {

class OpsOpenCL : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    be = static_cast<OpenCLBackend*>(test_backend("opencl", &why));
    if (be == nullptr) GTEST_SKIP() << why;
  }
  // How many times `name` has been launched on the shared backend so far (tests compare the
  // counts before and after a call: other tests launch it too).
  uint64_t launches(const char* name) {
    be->synchronize();
    be->kernel_log()->drain();
    const auto& k = be->kernel_log()->kernels();
    const auto it = k.find(name);
    return it == k.end() ? uint64_t{0} : it->second.launches;
  }
  OpenCLBackend* be = nullptr;
};

// The tests that route products through CLBlast, in a suite of their own: CTest runs them one at
// a time (tests/ops/CMakeLists.txt), so that the later ones read the CLBlast programs the first
// one left in PoCL's kernel cache instead of compiling them again beside it.
class OpsOpenCLClblast : public OpsOpenCL {};

}  // namespace sb::testing
