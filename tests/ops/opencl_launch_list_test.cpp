// What the OpenCL backend's launch lists do beside the contract (launch_list_test.cpp): a
// replay's launches reach the kernel log under their names when the events are on, and a
// library call (CLBlast) refuses the recording naming itself.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/ops/opencl_fixture.h"

namespace sb::testing {
namespace {

TEST_F(OpsOpenCL, LaunchListReplaysReachTheKernelLog) {
  if (const std::string why = be->launch_recording_unsupported(); !why.empty()) GTEST_SKIP() << why;
  Tensor x = be->upload(std::vector<float>(300, -1.5f), {300}), y = be->empty({300});
  be->activation(x, Act::relu, y);
  const auto list = record_launches(*be, [&] { be->activation(x, Act::relu, y); });
  ASSERT_EQ(list->launches(), 1u);
  const uint64_t before = launches("activation");
  list->replay();
  list->replay();
  EXPECT_EQ(launches("activation"), before + 2);
  EXPECT_EQ(be->download(y), std::vector<float>(300, 0.f));
}

// Under STAGEBENCH_F32_GEMM=portable (the Oclgrind pass) the same product is gemm_general, a
// kernel of our own, and records.
TEST_F(OpsOpenCLClblast, LaunchListRefusesALibraryCall) {
  if (const std::string why = be->launch_recording_unsupported(); !why.empty()) GTEST_SKIP() << why;
  const Weight w = be->prepare_weight(std::vector<float>(64 * 64, 0.5f), 64, 64, Precision::f32);
  Tensor x = be->upload(std::vector<float>(64 * 64, 1.f), {64, 64}), y = be->empty({64, 64});
  be->linear(x, w, y);
  const bool portable = be->library_tuning().find("portable") != std::string::npos;
  try {
    const auto list = record_launches(*be, [&] { be->linear(x, w, y); });
    EXPECT_TRUE(portable) << "CLBlast's call recorded";
    be->fill(y, 0.f);
    list->replay();
  } catch (const RecordingRefused& e) {
    EXPECT_FALSE(portable) << e.what();
    EXPECT_NE(std::string(e.what()).find("library call"), std::string::npos) << e.what();
  }
  EXPECT_EQ(be->download(y)[0], 32.f);  // the step ran (or its replay did)
}

}  // namespace
}  // namespace sb::testing
