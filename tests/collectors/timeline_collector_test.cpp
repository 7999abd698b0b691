#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "collectors/timeline_collector.h"
#include "collectors/timeline_trace.h"
#include "instrument/host_ranges.h"
#include "instrument/kernel_log.h"

namespace sb {
namespace {

StageRecord stage_named(const std::string& id) {
  StageRecord s;
  s.id = id;
  return s;
}

// Device commands whose timestamps are read late (a backend's pending events) land in the
// capture when the sample stops, not before: the warm-up's pending ones stay out of it.
TEST(TimelineCollector, ReadsPendingCommandsIntoTheCaptureAtStop) {
  auto sink = std::make_shared<TimelineSink>();
  sink->begin_run("m/tiny/opencl");
  KernelLog log;
  std::vector<KernelEvent> pending{{"warmup", 1, 2, 3}};
  log.set_drain([&] {
    for (const KernelEvent& e : pending)
      log.kernel_event(e.name, e.queued_ns, e.start_ns, e.end_ns);
    pending.clear();
  });
  CollectorSources sources;
  sources.kernels = &log;
  TimelineCollector timeline(sink);
  timeline.begin_stage(sources);
  timeline.start();
  pending = {{"gemm", 100, 150, 400}};
  timeline.stop();
  StageRecord s = stage_named("late");
  timeline.report(s, 1);
  ASSERT_EQ(sink->stages().size(), 1u);
  const StageTimeline& t = sink->stages()[0];
  ASSERT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.kernels[0].name, "gemm");
  EXPECT_EQ(t.device_ns, 250u);
}

// The first measured sample of a stage is captured, with its commands and the phases the model
// marked; later samples, and marks outside a capture, leave nothing.
TEST(TimelineCollector, CapturesTheFirstSampleOfEachStage) {
  auto sink = std::make_shared<TimelineSink>();
  sink->begin_run("m/tiny/opencl");
  KernelLog log;
  CollectorSources sources;
  sources.kernels = &log;
  TimelineCollector timeline(sink);
  timeline.begin_stage(sources);
  EXPECT_FALSE(log.capturing());

  PhaseMarks{}.end("before");  // no capture on: not kept
  timeline.start();
  EXPECT_TRUE(log.capturing());
  PhaseMarks marks;
  log.kernel_event("gemm", 100, 150, 400);
  marks.end("forward");
  log.kernel_event("softmax", 110, 400, 450);
  marks.end("backward");
  timeline.stop();
  EXPECT_FALSE(log.capturing());
  EXPECT_EQ(host_range_capture(), nullptr);

  timeline.start();  // the second sample
  log.kernel_event("gemm", 500, 600, 900);
  PhaseMarks{}.end("forward");
  timeline.stop();

  StageRecord s = stage_named("fused");
  timeline.report(s, 1);
  timeline.report(s, 1);  // reported again with a later partial: replaced, not added
  ASSERT_EQ(sink->stages().size(), 1u);
  const StageTimeline& t = sink->stages()[0];
  EXPECT_EQ(t.run, "m/tiny/opencl");
  EXPECT_EQ(t.stage, "fused");
  ASSERT_EQ(t.kernels.size(), 2u);
  EXPECT_EQ(t.kernels[1].name, "softmax");
  EXPECT_EQ(t.device_ns, 250u + 50u);
  ASSERT_EQ(t.phases.size(), 2u);
  EXPECT_EQ(t.phases[0].name, "forward");
  EXPECT_EQ(t.phases[1].name, "backward");
  EXPECT_LE(t.host_begin_ns, t.phases[0].begin_ns);
  EXPECT_LE(t.phases[0].end_ns, t.phases[1].begin_ns);
  EXPECT_LE(t.phases[1].end_ns, t.host_end_ns);
  EXPECT_EQ(log.total_ns(), 250u + 50u + 300u) << "the totals still count every command";
}

// A stage that threw inside its sample (no stop()) must not leave the process capturing.
TEST(TimelineCollector, ReleasesTheCaptureWhenASampleNeverStops) {
  KernelLog log;
  CollectorSources sources;
  sources.kernels = &log;
  {
    TimelineCollector timeline(std::make_shared<TimelineSink>());
    timeline.begin_stage(sources);
    timeline.start();
    EXPECT_NE(host_range_capture(), nullptr);
  }
  EXPECT_EQ(host_range_capture(), nullptr);
  EXPECT_FALSE(log.capturing());
}

// The trace: a process per run, named tracks, every event complete with its stage, host times
// from the first sample, and each sample's device commands placed so that the earliest QUEUED
// time falls on the sample's host start, their durations the device's.
TEST(TimelineTrace, PlacesDeviceCommandsOnTheHostClock) {
  StageTimeline a;
  a.run = "m/tiny/opencl";
  a.stage = "baseline";
  a.host_begin_ns = 1'000'000;
  a.host_end_ns = 1'050'000;
  a.phases = {{"forward", 1'000'000, 1'020'000}, {"backward", 1'020'000, 1'040'000}};
  a.kernels = {{"gemm", 7'000'000, 7'002'000, 7'010'000},
               {"relu", 7'001'000, 7'010'000, 7'011'000}};
  a.device_ns = 9'000;
  StageTimeline b = a;
  b.stage = "fused";
  b.host_begin_ns = 2'000'000;
  b.host_end_ns = 2'030'000;
  b.phases.clear();
  b.kernels = {{"fused", 0, 90'000'000, 90'004'000}};  // no QUEUED time: anchored on its start

  const nlohmann::json trace = chrome_trace({a, b});
  ASSERT_TRUE(trace["traceEvents"].is_array());
  EXPECT_EQ(trace["displayTimeUnit"], "ns");
  std::map<std::string, nlohmann::json> by_name;
  std::set<std::string> tracks;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M") {
      tracks.insert(e["args"]["name"].get<std::string>());
      continue;
    }
    ASSERT_EQ(e["ph"], "X");
    EXPECT_EQ(e["pid"], 1);
    by_name[e["name"].get<std::string>() + "@" + e["args"]["stage"].get<std::string>() + "/" +
            e["cat"].get<std::string>()] = e;
  }
  for (const char* t :
       {"m/tiny/opencl", "samples (host)", "device commands", "host: forward", "host: backward"})
    EXPECT_TRUE(tracks.count(t)) << t;
  EXPECT_DOUBLE_EQ(by_name["baseline@baseline/sample"]["ts"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(by_name["baseline@baseline/sample"]["dur"].get<double>(), 50);
  EXPECT_DOUBLE_EQ(by_name["fused@fused/sample"]["ts"].get<double>(),
                   1000);  // the sample, 1 ms later
  EXPECT_DOUBLE_EQ(by_name["backward@baseline/host"]["ts"].get<double>(), 20);
  // gemm queued at the anchor, started 2 us later; relu 10 us after the anchor.
  EXPECT_DOUBLE_EQ(by_name["gemm@baseline/device"]["ts"].get<double>(), 2);
  EXPECT_DOUBLE_EQ(by_name["gemm@baseline/device"]["dur"].get<double>(), 8);
  EXPECT_DOUBLE_EQ(by_name["gemm@baseline/device"]["args"]["queued_to_start_us"].get<double>(), 2);
  EXPECT_DOUBLE_EQ(by_name["relu@baseline/device"]["ts"].get<double>(), 10);
  EXPECT_EQ(by_name["baseline@baseline/sample"]["tid"], by_name["fused@fused/sample"]["tid"]);
  EXPECT_NE(by_name["gemm@baseline/device"]["tid"], by_name["forward@baseline/host"]["tid"]);
  // The second stage's command, device clock far away, lands at its sample's start.
  EXPECT_DOUBLE_EQ(by_name["fused@fused/device"]["ts"].get<double>(), 1000);
  EXPECT_DOUBLE_EQ(by_name["fused@fused/device"]["dur"].get<double>(), 4);
}

}  // namespace
}  // namespace sb
