// The context's typed view: every fact a reader shows, from a context as the CLI writes it, and
// a malformed block read as unknown rather than refused.
#include <gtest/gtest.h>

#include "schema/context_record.h"

namespace sb {
namespace {

TEST(ContextRecord, ReadsEveryFactReadersShow) {
  const auto ctx = nlohmann::json::parse(R"({
    "host": "vm", "date": "2026-11-28T14:00:00Z", "argv": ["/usr/bin/stagebench", "run"],
    "cpu": {"model": "AMD EPYC", "logical_cores": 2, "mhz": 2596.1, "l1d_bytes": 32768,
            "l2_bytes": 524288, "l3_bytes": 33554432},
    "memory": {"total_bytes": 25769803776}, "os": {"distro": "Debian 12", "virtualized": true},
    "build": {"git": "6b46b64", "git_dirty": false, "compiler": "gcc 12.2.0", "type": "Release"},
    "environment": {"OMP_NUM_THREADS": "1", "STAGEBENCH_X": 3},
    "opencl": {"devices": [{"name": "pthread", "platform": "Portable Computing Language"}]},
    "papi": {"events": {"PAPI_TOT_CYC": "no PMU", "perf::TASK-CLOCK": "opened"},
             "event_tiers": {"perf::TASK-CLOCK": "software"}},
    "collectors": [{"name": "opencl", "available": false, "reason": "no device"}],
    "threading": {"oversubscribed": true, "note": "2.0 of 2 cores busy"}})");
  const ContextRecord c = read_context(ctx);
  EXPECT_TRUE(c.present);
  EXPECT_EQ(c.host, "vm");
  EXPECT_EQ(c.executable, "/usr/bin/stagebench");
  EXPECT_EQ(c.cpu.model, "AMD EPYC");
  EXPECT_EQ(c.cpu.logical_cores, 2);
  EXPECT_EQ(c.cpu.l3_bytes, 33554432);
  EXPECT_DOUBLE_EQ(c.cpu.mhz.value_or(0), 2596.1);
  EXPECT_DOUBLE_EQ(c.memory_bytes.value_or(0), 25769803776.0);
  EXPECT_EQ(c.os_distro, "Debian 12");
  EXPECT_EQ(c.virtualized, true);
  EXPECT_EQ(c.build.git, "6b46b64");
  EXPECT_EQ(c.build.dirty, false);
  ASSERT_TRUE(c.environment.has_value());
  EXPECT_EQ(c.environment->at("STAGEBENCH_X"), "3");  // a non-string as its JSON
  ASSERT_EQ(c.opencl_devices.size(), 1u);
  EXPECT_EQ(c.opencl_devices[0].platform, "Portable Computing Language");
  ASSERT_EQ(c.papi_events.size(), 2u);
  EXPECT_EQ(c.papi_events[0].name, "PAPI_TOT_CYC");
  EXPECT_EQ(c.papi_events[0].tier, "hardware");  // where the tiers do not say
  EXPECT_FALSE(c.papi_events[0].opened);
  EXPECT_EQ(c.papi_events[1].tier, "software");
  EXPECT_TRUE(c.papi_events[1].opened);
  ASSERT_EQ(c.collectors.size(), 1u);
  EXPECT_EQ(c.collectors[0].available, false);
  EXPECT_EQ(c.oversubscribed, true);
  EXPECT_EQ(c.threading_note, "2.0 of 2 cores busy");
}

TEST(ContextRecord, MalformedFactsAreUnknownNotErrors) {
  const auto ctx = nlohmann::json::parse(R"({
    "host": 7, "argv": "stagebench", "cpu": {"logical_cores": 2.5, "l1d_bytes": "32K"},
    "build": {"git_dirty": "no"}, "environment": [], "papi": {"events": []},
    "collectors": {"name": "x"}, "threading": {"oversubscribed": "yes"}})");
  const ContextRecord c = read_context(ctx);
  EXPECT_TRUE(c.present);
  EXPECT_EQ(c.host, "");
  EXPECT_EQ(c.executable, "");
  EXPECT_FALSE(c.cpu.logical_cores.has_value());  // a fraction of a core is no count
  EXPECT_FALSE(c.cpu.l1d_bytes.has_value());
  EXPECT_FALSE(c.build.dirty.has_value());
  EXPECT_FALSE(c.environment.has_value());
  EXPECT_TRUE(c.papi_events.empty());
  EXPECT_FALSE(c.oversubscribed.has_value());
  EXPECT_FALSE(read_context(nlohmann::json::array()).present);
  EXPECT_FALSE(read_context(nullptr).environment.has_value());
}

}  // namespace
}  // namespace sb
