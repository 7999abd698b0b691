// The load probe and the threading plan it leads to (probes/cpu_load.h): /proc/stat parsing,
// busy fractions restricted to the allowed CPUs, the plan's choices, and a real measurement
// that sees two spinning threads.
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "probes/cpu_load.h"

namespace {

using sb::CoreLoad;
using sb::CpuTimes;

TEST(CpuLoad, ParsesPerCpuLinesAndSkipsTheAggregate) {
  const auto cpus = sb::parse_proc_stat(
      "cpu  10 0 10 100 0 0 0 0 0 0\n"
      "cpu0 5 1 4 50 2 1 1 1 0 0\n"
      "cpu1 5 0 6 50 0 0 0 0 0 0\n"
      "intr 123 4 5\n"
      "cpu7 1 2 3\n");  // too short: not a CPU line
  ASSERT_EQ(cpus.size(), 2u);
  EXPECT_EQ(cpus[0].cpu, 0);
  EXPECT_EQ(cpus[0].busy, 5u + 1 + 4 + 1 + 1 + 1);  // user nice system irq softirq steal
  EXPECT_EQ(cpus[0].total, cpus[0].busy + 50 + 2);  // + idle iowait
  EXPECT_EQ(cpus[1].cpu, 1);
}

TEST(CpuLoad, BusyCoresCountOnlyTheAllowedCpus) {
  const std::vector<CpuTimes> before = {{0, 100, 200}, {1, 100, 200}, {2, 0, 100}};
  const std::vector<CpuTimes> after = {{0, 200, 300}, {1, 150, 300}, {2, 100, 200}};
  EXPECT_DOUBLE_EQ(sb::busy_cores_between(before, after, {0, 1}), 1.5);
  EXPECT_DOUBLE_EQ(sb::busy_cores_between(before, after, {0, 1, 2}), 2.5);
  EXPECT_DOUBLE_EQ(sb::busy_cores_between(before, after, {3}), 0.0);
  EXPECT_DOUBLE_EQ(sb::busy_cores_between(after, before, {0, 1}), 0.0);  // counters went back
}

TEST(CpuLoad, AQuietMachineKeepsTheDefaults) {
  const auto p = sb::plan_threading(CoreLoad{8, 0.3, 0.15, ""}, "", "");
  EXPECT_FALSE(p.oversubscribed);
  EXPECT_EQ(p.threads, 8);
  EXPECT_EQ(p.wait_policy, "default");
  EXPECT_EQ(p.chosen_by, "default");
}

TEST(CpuLoad, ABusyMachineGetsTheFreeCoresAndPassiveWaits) {
  const auto one_busy = sb::plan_threading(CoreLoad{2, 1.0, 0.15, ""}, "", "");
  EXPECT_TRUE(one_busy.oversubscribed);
  EXPECT_EQ(one_busy.threads, 1);
  EXPECT_EQ(one_busy.wait_policy, "passive");
  EXPECT_EQ(one_busy.chosen_by, "load");
  EXPECT_NE(one_busy.note.find("1.0 of 2 cores busy"), std::string::npos) << one_busy.note;
  EXPECT_EQ(sb::plan_threading(CoreLoad{2, 2.0, 0.15, ""}, "", "").threads, 1);  // at least one
  EXPECT_EQ(sb::plan_threading(CoreLoad{16, 3.2, 0.15, ""}, "", "").threads, 13);
}

TEST(CpuLoad, TheUsersSettingsAreKeptAndTheLoadStillNamed) {
  const auto p = sb::plan_threading(CoreLoad{2, 1.5, 0.15, ""}, "2", "active");
  EXPECT_TRUE(p.oversubscribed);
  EXPECT_EQ(p.threads, 2);
  EXPECT_EQ(p.wait_policy, "active");
  EXPECT_EQ(p.chosen_by, "user");
  EXPECT_NE(p.note.find("oversubscribed"), std::string::npos) << p.note;
}

TEST(CpuLoad, AnUnmeasuredLoadKeepsTheDefaultsAndSaysWhy) {
  const auto p = sb::plan_threading(CoreLoad{4, 0, 0, "/proc/stat has no per-CPU lines"}, "", "");
  EXPECT_FALSE(p.oversubscribed);
  EXPECT_EQ(p.chosen_by, "default");
  EXPECT_NE(p.note.find("not measured"), std::string::npos);
}

TEST(CpuLoad, ThePlanRoundTripsThroughJson) {
  const auto p = sb::plan_threading(CoreLoad{2, 1.0, 0.15, ""}, "", "");
  const auto q = sb::threading_plan_from_json(sb::to_json(p));
  EXPECT_EQ(q.threads, p.threads);
  EXPECT_EQ(q.wait_policy, p.wait_policy);
  EXPECT_EQ(q.note, p.note);
  EXPECT_TRUE(q.oversubscribed);
}

TEST(CpuLoad, SeesThreadsSpinningOnTheAllowedCores) {
  std::atomic<bool> stop{false};
  std::vector<std::thread> spinners;
  const size_t cores = sb::allowed_cpus().size();
  for (size_t i = 0; i < cores; ++i)
    spinners.emplace_back([&] {
      while (!stop.load(std::memory_order_relaxed)) {
      }
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const CoreLoad load = sb::probe_core_load(0.3);
  stop = true;
  for (auto& t : spinners) t.join();
  ASSERT_TRUE(load.error.empty()) << load.error;
  EXPECT_EQ(load.cores, static_cast<int>(cores));
  // One spinner per core: most of every core is busy, whatever else runs beside the test.
  EXPECT_GE(load.busy_cores, 0.6 * static_cast<double>(cores)) << load.busy_cores;
}

}  // namespace
