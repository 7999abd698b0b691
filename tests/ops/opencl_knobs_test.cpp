// Every knob the OpenCL backend reads when it is made refuses a value it does not know: making
// the backend throws std::invalid_argument naming the variable and the value, which the CLI
// reports as bad input (exit 2, harness/cli/app.cpp) before anything is measured. Knobs read
// later (at a call) are the reader's to check (knobs_test.cpp).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "models/ops/opencl/opencl_backend.h"
#include "tests/ops/test_env.h"

namespace sb::testing {
namespace {

class OpsOpenCLKnobs : public ::testing::TestWithParam<const char*> {};

TEST_P(OpsOpenCLKnobs, AnUnknownValueFailsTheBackend) {
  const char* variable = GetParam();
  const ScopedEnv env(variable, "sideways");
  try {
    make_opencl_backend("");
    ADD_FAILURE() << variable << "=sideways accepted";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(variable), std::string::npos) << what;
    EXPECT_NE(what.find("sideways"), std::string::npos) << what;
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no OpenCL device: " << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    ReadWhenMade, OpsOpenCLKnobs,
    ::testing::Values("STAGEBENCH_WGMMA", "STAGEBENCH_GEMM_SPLIT_K", "STAGEBENCH_CONV_IGEMM",
                      "STAGEBENCH_CONV_DW_BF16", "STAGEBENCH_CONV_BF16_REUSE",
                      "STAGEBENCH_CONV_BF16_PRODUCERS", "STAGEBENCH_CONV_PHASE_STORE",
                      "STAGEBENCH_CONV_TRANSPOSE_IGEMM", "STAGEBENCH_CONV_LINES",
                      "STAGEBENCH_INORM_VEC4", "STAGEBENCH_CONV_NARROW", "STAGEBENCH_ROW_KERNELS",
                      "STAGEBENCH_LAYERNORM_WARP", "STAGEBENCH_SUM_AXIS1", "STAGEBENCH_POOL_VEC8",
                      "STAGEBENCH_THIN_GEMM", "STAGEBENCH_CONV_NCDHW", "STAGEBENCH_F16_IMAGES",
                      "STAGEBENCH_F16_ACTIVATIONS", "STAGEBENCH_F32_GEMM",
                      "STAGEBENCH_EVENTS_AT_SYNC", "STAGEBENCH_CL_EVENTS",
                      "STAGEBENCH_CLBLAST_TUNING", "STAGEBENCH_CL_LOCAL_MEM_LIMIT"),
    [](const ::testing::TestParamInfo<const char*>& info) {
      return std::string(info.param).substr(std::string("STAGEBENCH_").size());
    });

}  // namespace
}  // namespace sb::testing
