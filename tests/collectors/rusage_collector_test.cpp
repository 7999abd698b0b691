#include <gtest/gtest.h>

#include "tests/collectors/reported.h"

#include "collectors/rusage_collector.h"
#include "touch_memory.h"

namespace sb {
namespace {

TEST(RusageCollector, CountsMinorFaultsOfFreshMemory) {
  RusageCollector rusage;
  rusage.begin_stage({});
  rusage.start();
  testing::touch_fresh_memory(16 << 20);  // 4096 pages, freshly mapped: one fault each or so
  rusage.stop();
  nlohmann::json stage = testing::reported(rusage, 2);
  const auto& faults = stage["counters"]["os::minor_faults"];
  EXPECT_GE(faults["value"].get<double>(), 1000);
  EXPECT_DOUBLE_EQ(faults["per_item"].get<double>(), faults["value"].get<double>() / 2);
  EXPECT_EQ(faults["tier"], "os");
  for (const char* name : RusageCollector::kCounterNames) {
    EXPECT_TRUE(stage["counters"].contains(name)) << name;
  }
}

TEST(RusageCollector, ReportsNothingWithoutSamples) {
  RusageCollector rusage;
  rusage.begin_stage({});
  nlohmann::json stage = testing::reported(rusage, 1);
  EXPECT_TRUE(stage["counters"].empty());
}

}  // namespace
}  // namespace sb
