// The timeline file the drill-down draws (gui/model/timeline.h): stages placed by their captured
// sample, tracks in reading order, device time summed; files that are not timelines named.
#include "gui/model/timeline.h"

#include <gtest/gtest.h>

namespace sb::viewer {
namespace {

using json = nlohmann::json;

json x(int tid, const char* name, const char* stage, double ts, double dur,
       const char* cat = "host") {
  return {{"ph", "X"},  {"pid", 1}, {"tid", tid}, {"name", name},
          {"cat", cat}, {"ts", ts}, {"dur", dur}, {"args", {{"stage", stage}}}};
}

json thread(int tid, const char* name) {
  return {
      {"ph", "M"}, {"pid", 1}, {"tid", tid}, {"name", "thread_name"}, {"args", {{"name", name}}}};
}

json trace() {
  return {{"traceEvents",
           {{{"ph", "M"},
             {"pid", 1},
             {"tid", 0},
             {"name", "process_name"},
             {"args", {{"name", "deepfm/tiny/opencl"}}}},
            thread(1, "samples (host)"),
            thread(2, "device commands"),
            thread(3, "host: backward"),
            thread(4, "host: forward"),
            x(1, "baseline", "baseline", 1000, 900, "sample"),
            x(3, "backward", "baseline", 1400, 400),
            x(4, "forward", "baseline", 1010, 380),
            x(2, "gemm", "baseline", 1020, 100, "device"),
            x(2, "adamw", "baseline", 1800, 50, "device"),
            x(1, "amp", "amp", 5000, 700, "sample"),
            x(2, "gemm", "amp", 5100, 60, "device")}}};
}

TEST(Timeline, StagesAreTheirSamplesWithTracksInReadingOrder) {
  const TimelineFile file = read_timeline(trace());
  ASSERT_EQ(file.size(), 1u);
  const auto& run = file.at(QStringLiteral("deepfm/tiny/opencl"));
  ASSERT_EQ(run.size(), 2u);
  const TimelineStage& base = run.at(QStringLiteral("baseline"));
  EXPECT_DOUBLE_EQ(base.sample_us, 900);
  EXPECT_DOUBLE_EQ(base.device_busy_us, 150);
  ASSERT_EQ(base.tracks.size(), 4u);
  // The sample, the host phases in the order they began (forward before backward, whatever
  // their thread ids), then the device.
  EXPECT_EQ(base.tracks[0].name, "sample");
  EXPECT_EQ(base.tracks[1].name, "host: forward");
  EXPECT_EQ(base.tracks[2].name, "host: backward");
  EXPECT_EQ(base.tracks[3].name, "device commands");
  EXPECT_TRUE(base.tracks[3].device);
  // Times from the sample's start.
  EXPECT_DOUBLE_EQ(base.tracks[1].spans[0].start_us, 10);
  EXPECT_DOUBLE_EQ(base.tracks[3].spans[1].start_us, 800);
  EXPECT_EQ(base.tracks[3].spans[1].name, "adamw");
  const TimelineStage& amp = run.at(QStringLiteral("amp"));
  EXPECT_DOUBLE_EQ(amp.tracks.back().spans[0].start_us, 100);
}

TEST(Timeline, WhatIsNotATimelineIsNamed) {
  EXPECT_THROW(read_timeline(json::object()), std::invalid_argument);
  json t = trace();
  t["traceEvents"][6]["dur"] = -1;
  try {
    read_timeline(t);
    FAIL() << "a negative duration was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("traceEvents[6]"), std::string::npos) << e.what();
  }
  t = trace();
  t["traceEvents"][7]["ts"] = "soon";
  EXPECT_THROW(read_timeline(t), std::invalid_argument);
}

TEST(Timeline, LivesBesideItsResultFile) {
  EXPECT_EQ(timeline_path_for(QStringLiteral("/r/deepfm-full.json")),
            QStringLiteral("/r/deepfm-full.trace.json"));
  EXPECT_EQ(timeline_path_for(QStringLiteral("/r/x")), QStringLiteral("/r/x.trace.json"));
}

}  // namespace
}  // namespace sb::viewer
