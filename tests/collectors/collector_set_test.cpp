#include <gtest/gtest.h>

#include "collectors/collectors.h"

namespace sb {
namespace {

TEST(CollectorSet, WallClockFirstAndEveryCollectorDescribed) {
  CollectorSet set = make_collectors({"PAPI_NOT_AN_EVENT"});
  ASSERT_EQ(set.all.size(), 5u);
  EXPECT_EQ(set.all.front().get(), set.wall);
  std::vector<std::string> names;
  for (const auto& collector : set.all) {
    const nlohmann::json d = describe(*collector);
    names.push_back(d["name"]);
    EXPECT_EQ(d["available"].get<bool>(), d["reason"].is_null()) << d.dump();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"wall_clock", "rusage", "memory", "papi", "opencl"}));

  // A whole stage with no sources: every collector reports without throwing.
  for (auto& collector : set.all) collector->begin_stage({});
  for (auto& collector : set.all) collector->start();
  for (auto& collector : set.all) collector->stop();
  nlohmann::json stage = nlohmann::json::object();
  for (const auto& collector : set.all) ASSERT_NO_THROW(collector->report(stage, 1));
  EXPECT_TRUE(stage["counters"].contains("os::cpu_time_ns"));
  EXPECT_TRUE(stage["memory"].contains("host_peak_bytes"));
  EXPECT_FALSE(stage.contains("opencl"));
  EXPECT_EQ(set.wall->samples_ns().size(), 1u);
}

}  // namespace
}  // namespace sb
