#pragma once
// A `run --timeline` file (Chrome trace-event JSON, collectors/timeline_trace.h) parsed once into
// typed data for the drill-down: per run ("model/size/backend", the trace's process name) and
// stage, the captured sample and its tracks (the host phases, the device's commands) of complete
// events, their times in microseconds from the sample's start. The viewer draws these itself:
// the machines it runs on may have no browser for Perfetto.
#include <map>
#include <optional>
#include <vector>

#include <QString>
#include <nlohmann/json.hpp>

namespace sb::viewer {

struct TimelineSpan {
  QString name;
  double start_us = 0;  // from the sample's start
  double dur_us = 0;
};

struct TimelineTrack {
  QString name;  // "sample", "host: forward", "device commands"
  bool device = false;
  std::vector<TimelineSpan> spans;  // by start
};

struct TimelineStage {
  double sample_us = 0;               // the captured sample's host duration
  double device_busy_us = 0;          // the device commands' summed durations
  std::vector<TimelineTrack> tracks;  // the sample, the host phases, then the device's
};

// Run name -> stage id -> its captured sample.
using TimelineFile = std::map<QString, std::map<QString, TimelineStage>>;

// Throws std::invalid_argument naming what is not a trace `run --timeline` writes.
TimelineFile read_timeline(const nlohmann::json& trace);

// The timeline file beside a result file: "x.json" -> "x.trace.json" (what `run -o x.json
// --timeline x.trace.json` writes, and the committed results' names).
QString timeline_path_for(const QString& result_path);

}  // namespace sb::viewer
