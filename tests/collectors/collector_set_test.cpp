#include <gtest/gtest.h>

#include "collectors/collectors.h"

namespace sb {
namespace {

TEST(CollectorSet, EveryCollectorDescribed) {
  const auto all = make_collectors({"PAPI_NOT_AN_EVENT"});
  std::vector<std::string> names;
  for (const auto& collector : all) {
    const nlohmann::json d = describe(*collector);
    names.push_back(d["name"]);
    EXPECT_EQ(d["available"].get<bool>(), d["reason"].is_null()) << d.dump();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"rusage", "memory", "papi", "opencl"}));

  // A whole stage with no sources: every collector reports without throwing.
  for (auto& collector : all) collector->begin_stage({});
  for (auto& collector : all) collector->start();
  for (auto& collector : all) collector->stop();
  StageRecord record;
  for (const auto& collector : all) ASSERT_NO_THROW(collector->report(record, 1));
  nlohmann::json stage = record;
  EXPECT_TRUE(stage["counters"].contains("os::cpu_time_ns"));
  EXPECT_TRUE(stage["memory"].contains("host_peak_bytes"));
  EXPECT_TRUE(stage["opencl"].is_null());
}

}  // namespace
}  // namespace sb
