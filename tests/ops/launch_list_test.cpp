// The launch-list contract (models/ops/launch_list.h): on OpenCL (PoCL here, NVIDIA in the GPU
// calls) a recorded step replayed gives the eager step's bits on its tensors' new contents, its
// temporaries survive the pool, and a step that reads back, writes host memory or waits for the
// device fails to record with that reason; the cpu backend says why it records nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "models/ops/backend.h"
#include "tests/ops/test_backends.h"

namespace sb::testing {
namespace {

Backend* opencl_or_skip() {
  std::string why;
  return test_backend("opencl", &why);
}

std::vector<float> ramp(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * (static_cast<float>(i % 37) - 18.f) / 7.f;
  return v;
}

// A step of three of the backend's own kernels through a temporary made and freed inside it.
void step(Backend& be, const Tensor& x, const Tensor& scale, Tensor& y) {
  Tensor t = be.empty(x.shape());
  be.activation(x, Act::gelu, t);
  be.mul(t, scale, t);
  be.add(t, x, y);
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(LaunchList, CpuBackendSaysItLaunchesNothing) {
  std::string why;
  Backend* be = test_backend("cpu", &why);
  ASSERT_NE(be, nullptr) << why;
  EXPECT_EQ(be->launch_recording_unsupported(),
            "the cpu backend launches no kernels: there is no launch list to record");
  try {
    record_launches(*be, [] {});
    FAIL() << "expected RecordingRefused";
  } catch (const RecordingRefused& e) {
    EXPECT_EQ(std::string(e.what()), be->launch_recording_unsupported());
  }
}

TEST(LaunchList, ReplayGivesTheEagerStepsBitsOnNewInput) {
  Backend* be = opencl_or_skip();
  if (!be) GTEST_SKIP() << "no OpenCL device";
  if (const std::string why = be->launch_recording_unsupported(); !why.empty()) GTEST_SKIP() << why;
  constexpr size_t n = 4099;  // not a multiple of a work-group: the sizes are kept as launched
  Tensor x = be->upload(ramp(n, 1.f), {n}), scale = be->upload(ramp(n, 0.5f), {n}),
         y = be->empty({n});
  step(*be, x, scale, y);  // eager first: every kernel built, every choice made
  const auto list = record_launches(*be, [&] { step(*be, x, scale, y); });
  EXPECT_EQ(list->launches(), 3u);
  EXPECT_NE(list->how().find("clCloneKernel"), std::string::npos) << list->how();

  // New input in the same tensor: the eager step's output on it, then the replay's.
  be->write(ramp(n, -2.f), x);
  step(*be, x, scale, y);
  const std::vector<float> eager = be->download(y);
  // The pool must not hand the list's temporary to anyone else: these take every free buffer
  // of its size and fill it with something else before the replay.
  std::vector<Tensor> others;
  for (int i = 0; i < 4; ++i) {
    others.push_back(be->empty({n}));
    be->fill(others.back(), 1e6f);
  }
  be->fill(y, -1.f);
  list->replay();
  EXPECT_TRUE(same_bits(be->download(y), eager));
  for (int i = 0; i < 2; ++i) list->replay();  // replays repeat
  EXPECT_TRUE(same_bits(be->download(y), eager));
  for (Tensor& t : others) EXPECT_EQ(be->download(t)[n / 2], 1e6f);  // untouched by the replay
}

TEST(LaunchList, AStepThatReadsBackFailsNamingIt) {
  Backend* be = opencl_or_skip();
  if (!be) GTEST_SKIP() << "no OpenCL device";
  if (const std::string why = be->launch_recording_unsupported(); !why.empty()) GTEST_SKIP() << why;
  Tensor x = be->upload(ramp(64, 1.f), {64}), y = be->empty({64});
  std::vector<float> read;
  try {
    record_launches(*be, [&] {
      be->activation(x, Act::relu, y);
      read = be->download(y);  // a branch on device data would need this
      be->add(y, x, y);
    });
    FAIL() << "expected RecordingRefused";
  } catch (const RecordingRefused& e) {
    EXPECT_NE(std::string(e.what()).find("reads device memory back to the host"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read[10], std::max(0.f, ramp(64, 1.f)[10]));  // the step itself ran
  // The recording is over: another one starts.
  const auto list = record_launches(*be, [&] { be->activation(x, Act::relu, y); });
  EXPECT_EQ(list->launches(), 1u);
}

TEST(LaunchList, WritesAndWaitsFailNamingThem) {
  Backend* be = opencl_or_skip();
  if (!be) GTEST_SKIP() << "no OpenCL device";
  if (const std::string why = be->launch_recording_unsupported(); !why.empty()) GTEST_SKIP() << why;
  Tensor x = be->upload(ramp(64, 1.f), {64}), y = be->empty({64});
  const auto refusal = [&](auto&& f) -> std::string {
    try {
      record_launches(*be, f);
    } catch (const RecordingRefused& e) {
      return e.what();
    }
    return "recorded";
  };
  EXPECT_NE(refusal([&] { be->write(ramp(64, 3.f), x); }).find("copies host memory"),
            std::string::npos);
  EXPECT_NE(refusal([&] {
              be->activation(x, Act::relu, y);
              be->synchronize();
            }).find("waits for the device"),
            std::string::npos);
  EXPECT_NE(refusal([] {}).find("launched no kernels"), std::string::npos);
  be->begin_launch_recording();
  EXPECT_THROW(be->begin_launch_recording(), std::logic_error);  // recordings do not nest
  EXPECT_THROW(be->end_launch_recording(), RecordingRefused);    // nothing launched
}

}  // namespace
}  // namespace sb::testing
