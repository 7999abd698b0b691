#include <gtest/gtest.h>

#include "probes/probe.h"

namespace sb {
namespace {

TEST(ProbeText, NamesEachSection) {
  const nlohmann::json context = probe_context({{"PAPI_NOT_AN_EVENT"}, false});
  const std::string text = format_probe_text(context);
  for (const char* section : {"CPU ", "Memory ", "OS ", "Build ", "PAPI ", "OpenCL "}) {
    EXPECT_NE(text.find(section), std::string::npos) << section << "\n" << text;
  }
  EXPECT_NE(text.find(context["cpu"]["model"].get<std::string>()), std::string::npos);
}

TEST(ProbeText, ShowsFailedEventsAndUnavailableParts) {
  const nlohmann::json context = {
      {"papi",
       {{"available", true},
        {"version", "7.0.0.0"},
        {"components",
         {{{"name", "perf_event"}, {"enabled", false}, {"disabled_reason", "no PMU"}}}},
        {"events", {{"PAPI_TOT_CYC", "Event does not exist"}, {"perf::TASK-CLOCK", "opened"}}},
        {"event_tiers", {{"PAPI_TOT_CYC", "hardware"}, {"perf::TASK-CLOCK", "software"}}}}},
      {"opencl", {{"available", false}, {"reason", "no OpenCL platform installed"}}}};
  const std::string text = format_probe_text(context);
  EXPECT_NE(text.find("FAILED PAPI_TOT_CYC [hardware]: Event does not exist"), std::string::npos)
      << text;
  EXPECT_NE(text.find("opened perf::TASK-CLOCK [software]"), std::string::npos) << text;
  EXPECT_NE(text.find("component perf_event disabled: no PMU"), std::string::npos) << text;
  EXPECT_NE(text.find("no OpenCL platform installed"), std::string::npos) << text;
}

}  // namespace
}  // namespace sb
