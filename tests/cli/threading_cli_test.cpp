// A run on busy cores (issue 16): the binary sees the load, runs with one thread per free core
// and passive waits, says so, and records the plan in the result's context.
#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "probes/cpu_load.h"
#include "schema/document.h"
#include "tests/common/run_stagebench.h"
#include "tests/common/temp_dir.h"

namespace threading_cli {

using sb::testing::run_stagebench;
using sb::testing::TempDir;

TEST(ThreadingCli, ARunOnBusyCoresAdaptsAndRecordsWhy) {
  // The choice is the binary's only where the user made none: the test presets set
  // OMP_WAIT_POLICY for the suite (docs/testing.md), so the child runs without it.
  const char* ambient = std::getenv("OMP_WAIT_POLICY");
  const std::string kept = ambient ? ambient : "";
  unsetenv("OMP_WAIT_POLICY");
  TempDir dir;
  const auto out = dir.file("busy.json");
  std::atomic<bool> stop{false};
  std::vector<std::thread> spinners;
  for (size_t i = 0; i < sb::allowed_cpus().size(); ++i)
    spinners.emplace_back([&] {
      while (!stop.load(std::memory_order_relaxed)) {
      }
    });
  const auto r = run_stagebench(
      "run deepfm --size tiny --backend cpu --stages baseline "
      "--max-time 0.2 --warmup 0 -q -o " +
      out.string());
  stop = true;
  for (auto& t : spinners) t.join();
  if (ambient) setenv("OMP_WAIT_POLICY", kept.c_str(), 1);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("(oversubscribed)"), std::string::npos) << r.output;
  const auto threading = sb::read_document(out)["context"]["threading"];
  EXPECT_TRUE(threading["oversubscribed"].get<bool>()) << threading;
  EXPECT_EQ(threading["chosen_by"], "load");
  EXPECT_EQ(threading["wait_policy"], "passive");
  EXPECT_LT(threading["threads"].get<int>(), threading["cores"].get<int>() + 1);
}

TEST(ThreadingCli, TheUsersSettingIsKept) {
  TempDir dir;
  const auto out = dir.file("user.json");
  const char* ambient = std::getenv("OMP_WAIT_POLICY");
  const std::string kept = ambient ? ambient : "";
  setenv("OMP_WAIT_POLICY", "active", 1);
  const auto u = run_stagebench(
      "run deepfm --size tiny --backend cpu --stages baseline "
      "--max-time 0.2 --warmup 0 -q -o " +
      out.string());
  setenv("OMP_WAIT_POLICY", kept.c_str(), 1);
  if (kept.empty()) unsetenv("OMP_WAIT_POLICY");
  ASSERT_EQ(u.status, 0) << u.output;
  const auto threading = sb::read_document(out)["context"]["threading"];
  EXPECT_EQ(threading["chosen_by"], "user");
  EXPECT_EQ(threading["wait_policy"], "active");
}

}  // namespace threading_cli
