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
  OpenCLBackend* be = nullptr;
};

}  // namespace sb::testing
