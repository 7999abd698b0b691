#include <gtest/gtest.h>

#include "probes/probe.h"

namespace sb {
namespace {

const PapiEventStatus* find_event(const PapiInfo& papi, const std::string& name) {
  for (const auto& event : papi.events) {
    if (event.name == name) return &event;
  }
  return nullptr;
}

TEST(PapiProbe, MadeUpEventIsNotOpenedAndSaysWhy) {
  PapiInfo papi;
  ASSERT_NO_THROW(papi = probe_papi({"PAPI_NOT_AN_EVENT"}));
  if (!papi.available) {
    EXPECT_FALSE(papi.reason.empty());
    GTEST_SKIP() << "PAPI unavailable: " << papi.reason;
  }
  const PapiEventStatus* event = find_event(papi, "PAPI_NOT_AN_EVENT");
  ASSERT_NE(event, nullptr);
  EXPECT_FALSE(event->opened);
  EXPECT_FALSE(event->error.empty());
}

TEST(PapiProbe, CycleCounterRecordIsConsistent) {
  const PapiInfo papi = probe_papi({"PAPI_TOT_CYC", "perf::TASK-CLOCK"});
  if (!papi.available) GTEST_SKIP() << papi.reason;
  EXPECT_FALSE(papi.version.empty());
  EXPECT_FALSE(papi.components.empty());
  ASSERT_EQ(papi.events.size(), 2u);
  for (const auto& event : papi.events) {
    EXPECT_EQ(event.opened, event.error.empty()) << event.name << ": " << event.error;
  }
  EXPECT_EQ(find_event(papi, "PAPI_TOT_CYC")->tier, "hardware");
  EXPECT_EQ(find_event(papi, "perf::TASK-CLOCK")->tier, "software");
}

TEST(PapiProbe, JsonMapsEventToStatus) {
  const nlohmann::json papi = to_json(probe_papi({"PAPI_NOT_AN_EVENT"}));
  ASSERT_TRUE(papi.contains("available"));
  if (!papi["available"].get<bool>()) {
    EXPECT_TRUE(papi["reason"].is_string());
    return;
  }
  ASSERT_TRUE(papi["events"].contains("PAPI_NOT_AN_EVENT"));
  EXPECT_NE(papi["events"]["PAPI_NOT_AN_EVENT"], "opened");
  EXPECT_EQ(papi["event_tiers"]["PAPI_NOT_AN_EVENT"], "hardware");
}

TEST(PapiProbe, TierNamesSoftwareEvents) {
  EXPECT_EQ(papi_event_tier("perf::PAGE-FAULTS"), "software");
  EXPECT_EQ(papi_event_tier("perf::CONTEXT-SWITCHES"), "software");
  EXPECT_EQ(papi_event_tier("perf::CYCLES"), "hardware");
  EXPECT_EQ(papi_event_tier("PAPI_TOT_INS"), "hardware");
}

}  // namespace
}  // namespace sb
