#include <gtest/gtest.h>

#include "tests/collectors/reported.h"

#include "collectors/papi_collector.h"

namespace sb {
namespace {

TEST(PapiCollector, MadeUpEventOnlyIsUnavailableWithReason) {
  PapiCollector papi({"PAPI_NOT_AN_EVENT"});
  EXPECT_FALSE(papi.available());
  EXPECT_FALSE(papi.unavailable_reason().empty());
  ASSERT_EQ(papi.event_status().size(), 1u);
  EXPECT_FALSE(papi.event_status()[0].opened);
  papi.begin_stage({});
  papi.start();
  papi.stop();
  nlohmann::json stage;
  ASSERT_NO_THROW(stage = testing::reported(papi, 1));
  EXPECT_EQ(stage["papi"]["available"], false);
  EXPECT_EQ(stage["papi"]["reason"], papi.unavailable_reason());
  EXPECT_EQ(stage["papi"]["scope"], "calling thread");
  EXPECT_NE(stage["counters_status"]["PAPI_NOT_AN_EVENT"], "opened");
  EXPECT_TRUE(stage["counters"].empty());
}

// Whatever opens here (nothing on a PMU-less VM with perf_event disabled) is reported consistently.
TEST(PapiCollector, OpenedEventsAreCountedPerSample) {
  PapiCollector papi({"perf::TASK-CLOCK", "perf::PAGE-FAULTS", "PAPI_TOT_CYC"});
  EXPECT_EQ(papi.available(), !papi.opened_events().empty());
  papi.begin_stage({});
  for (int i = 0; i < 3; ++i) {
    papi.start();
    papi.stop();
  }
  nlohmann::json stage = testing::reported(papi, 1);
  ASSERT_EQ(stage["counters_status"].size(), 3u);
  for (const auto& status : papi.event_status()) {
    EXPECT_EQ(status.opened, stage["counters_status"][status.name] == "opened") << status.name;
    EXPECT_EQ(status.opened, stage.contains("counters") && stage["counters"].contains(status.name))
        << status.name;
  }
  if (papi.available()) {
    EXPECT_EQ(stage["papi"]["samples"], 3);
  }
}

}  // namespace
}  // namespace sb
