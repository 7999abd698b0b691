#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/collectors/reported.h"

#include "collectors/opencl_collector.h"
#include "instrument/kernel_log.h"

namespace sb {
namespace {

TEST(OpenCLCollector, FoldsKernelLogPerSample) {
  KernelLog log;
  log.kernel("stale", 999);  // from before the stage: cleared at start()
  OpenCLCollector opencl;
  CollectorSources sources;
  sources.kernels = &log;
  opencl.begin_stage(sources);
  ASSERT_TRUE(opencl.available());

  opencl.start();
  log.kernel("gemm", 1000);
  log.kernel("gemm", 3000);
  log.kernel("softmax", 500);
  log.host_to_device(4096);
  opencl.stop();
  opencl.start();
  log.kernel("gemm", 2000);
  log.kernel("gemm", 2000);
  log.kernel("softmax", 1500);
  log.device_to_host(100);
  opencl.stop();

  nlohmann::json stage = testing::reported(opencl, 1);
  const auto& kernels = stage["opencl"]["kernels"];
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0]["name"], "gemm");
  EXPECT_DOUBLE_EQ(kernels[0]["launches"].get<double>(), 2);
  EXPECT_DOUBLE_EQ(kernels[0]["total_ns"].get<double>(), 4000);
  EXPECT_EQ(kernels[1]["name"], "softmax");
  EXPECT_DOUBLE_EQ(kernels[1]["launches"].get<double>(), 1);
  EXPECT_DOUBLE_EQ(kernels[1]["total_ns"].get<double>(), 1000);
  EXPECT_DOUBLE_EQ(stage["opencl"]["device_ms"]["min"].get<double>(), 0.0045);
  EXPECT_DOUBLE_EQ(stage["opencl"]["device_ms"]["max"].get<double>(), 0.0055);
  EXPECT_DOUBLE_EQ(stage["opencl"]["device_ms"]["median"].get<double>(), 0.005);
  EXPECT_DOUBLE_EQ(stage["opencl"]["h2d_bytes"].get<double>(), 2048);
  EXPECT_DOUBLE_EQ(stage["opencl"]["d2h_bytes"].get<double>(), 50);
  EXPECT_FALSE(stage.dump().find("stale") != std::string::npos);
  EXPECT_TRUE(stage["gemm_path"].is_null()) << "no tensor-core GEMM was logged";
  EXPECT_FALSE(stage["opencl"].contains("gemm_calls"));
}

// Device times that arrive late (a backend's pending profiling events) are read by the
// collector, outside the timed region: what is pending when a sample starts belongs to the
// warm-up and is dropped; what is pending when it stops is the sample's.
TEST(OpenCLCollector, ReadsPendingDeviceTimesAtStopAndDropsThemAtStart) {
  KernelLog log;
  std::vector<std::pair<std::string, uint64_t>> pending{{"warmup", 700}};
  int drains = 0;
  log.set_drain([&] {
    ++drains;
    for (const auto& [name, ns] : pending) log.kernel(name, ns);
    pending.clear();
  });
  OpenCLCollector opencl;
  CollectorSources sources;
  sources.kernels = &log;
  opencl.begin_stage(sources);
  opencl.start();
  EXPECT_EQ(drains, 1);
  pending = {{"gemm", 1000}, {"gemm", 3000}};  // queued during the sample, not read yet
  EXPECT_TRUE(log.kernels().empty());
  opencl.stop();
  EXPECT_EQ(drains, 2);
  const nlohmann::json stage = testing::reported(opencl, 1);
  const auto& kernels = stage["opencl"]["kernels"];
  ASSERT_EQ(kernels.size(), 1u) << stage.dump();
  EXPECT_EQ(kernels[0]["name"], "gemm");
  EXPECT_DOUBLE_EQ(kernels[0]["launches"].get<double>(), 2);
  EXPECT_DOUBLE_EQ(stage["opencl"]["device_ms"]["median"].get<double>(), 0.004);
}

// Which path the stage's tensor-core GEMMs took: per-sample call counts by "precision path",
// and the stage's gemm_path, the path with more calls first.
TEST(OpenCLCollector, RecordsTheGemmPathsPerSample) {
  KernelLog log;
  log.gemm("fp16 mma.sync");  // before the stage: cleared at start()
  OpenCLCollector opencl;
  CollectorSources sources;
  sources.kernels = &log;
  opencl.begin_stage(sources);
  for (int sample = 0; sample < 2; ++sample) {
    opencl.start();
    for (int i = 0; i < 3; ++i) log.gemm("fp16 wgmma");
    log.gemm("int8 mma.sync");
    log.kernel("wgmma_f16_256", 100);
    opencl.stop();
  }
  nlohmann::json stage = testing::reported(opencl, 1);
  EXPECT_EQ(stage["gemm_path"], "wgmma+mma.sync");
  EXPECT_DOUBLE_EQ(stage["opencl"]["gemm_calls"]["fp16 wgmma"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(stage["opencl"]["gemm_calls"]["int8 mma.sync"].get<double>(), 1);
  EXPECT_FALSE(stage["opencl"]["gemm_calls"].contains("fp16 mma.sync"));
}

TEST(OpenCLCollector, GemmPathOrdersByCallsAndNamesOnePathAlone) {
  EXPECT_EQ(gemm_path_of({}), std::nullopt);
  EXPECT_EQ(gemm_path_of({{"fp16 wgmma", 4}}), "wgmma");
  EXPECT_EQ(gemm_path_of({{"fp16 wgmma", 1}, {"fp16 mma.sync", 2}, {"int8 mma.sync", 2}}),
            "mma.sync+wgmma");
  EXPECT_EQ(gemm_path_of({{"fp16 mma.sync", 5}, {"tf32 mma.sync", 1}}), "mma.sync");
}

TEST(OpenCLCollector, UnavailableWithoutKernelLog) {
  OpenCLCollector opencl;
  EXPECT_TRUE(opencl.available()) << "unknown until the stage's sources are seen";
  opencl.begin_stage({});
  EXPECT_FALSE(opencl.available());
  EXPECT_EQ(opencl.unavailable_reason(), "backend has no device kernels");
  opencl.start();
  opencl.stop();
  nlohmann::json stage = testing::reported(opencl, 1);
  EXPECT_TRUE(stage["opencl"].is_null());
}

}  // namespace
}  // namespace sb
