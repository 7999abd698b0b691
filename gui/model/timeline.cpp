#include "gui/model/timeline.h"

#include <algorithm>
#include <stdexcept>

namespace sb::viewer {
namespace {

using json = nlohmann::json;

struct Event {
  int pid = 0, tid = 0;
  QString name, stage;
  bool sample = false;  // the captured sample itself ("cat": "sample")
  double ts = 0, dur = 0;
};

QString str(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                          : QString();
}

double num(const json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number())
    throw std::invalid_argument(where + ": \"" + key + "\" is not a number");
  return it->get<double>();
}

int integer(const json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer())
    throw std::invalid_argument(where + ": \"" + key + "\" is not an integer");
  return it->get<int>();
}

}  // namespace

TimelineFile read_timeline(const json& trace) {
  if (!trace.is_object() || !trace.contains("traceEvents") || !trace["traceEvents"].is_array())
    throw std::invalid_argument("not a trace-event file: no \"traceEvents\" array");
  std::map<int, QString> processes;
  std::map<std::pair<int, int>, QString> threads;
  std::vector<Event> events;
  size_t i = 0;
  for (const json& e : trace["traceEvents"]) {
    const std::string where = "traceEvents[" + std::to_string(i++) + "]";
    if (!e.is_object()) throw std::invalid_argument(where + ": not an object");
    const QString ph = str(e, "ph");
    const json& args = e.contains("args") && e["args"].is_object() ? e["args"] : json::object();
    if (ph == QLatin1String("M")) {
      const int pid = integer(e, "pid", where);
      if (str(e, "name") == QLatin1String("process_name")) processes[pid] = str(args, "name");
      if (str(e, "name") == QLatin1String("thread_name"))
        threads[{pid, integer(e, "tid", where)}] = str(args, "name");
      continue;
    }
    if (ph != QLatin1String("X")) continue;  // only complete events carry spans
    Event ev;
    ev.pid = integer(e, "pid", where);
    ev.tid = integer(e, "tid", where);
    ev.name = str(e, "name");
    ev.stage = str(args, "stage");
    ev.sample = str(e, "cat") == QLatin1String("sample");
    ev.ts = num(e, "ts", where);
    ev.dur = num(e, "dur", where);
    if (ev.dur < 0) throw std::invalid_argument(where + ": negative \"dur\"");
    if (!ev.stage.isEmpty()) events.push_back(ev);
  }
  TimelineFile file;
  // The sample spans first: they set each stage's origin.
  std::map<std::pair<int, QString>, double> origin;
  for (const Event& ev : events) {
    if (!ev.sample) continue;
    const QString run = processes.count(ev.pid) ? processes[ev.pid] : QString::number(ev.pid);
    TimelineStage& stage = file[run][ev.stage];
    stage.sample_us = ev.dur;
    origin[{ev.pid, ev.stage}] = ev.ts;
  }
  for (const Event& ev : events) {
    const auto o = origin.find({ev.pid, ev.stage});
    if (o == origin.end()) continue;  // a stage without its sample span: nothing to place it by
    const QString run = processes.count(ev.pid) ? processes[ev.pid] : QString::number(ev.pid);
    TimelineStage& stage = file[run][ev.stage];
    const QString track = ev.sample ? QStringLiteral("sample")
                          : threads.count({ev.pid, ev.tid})
                              ? threads[{ev.pid, ev.tid}]
                              : QStringLiteral("track %1").arg(ev.tid);
    const bool device = track.startsWith(QLatin1String("device"));
    auto t = std::find_if(stage.tracks.begin(), stage.tracks.end(),
                          [&](const TimelineTrack& x) { return x.name == track; });
    if (t == stage.tracks.end()) t = stage.tracks.insert(stage.tracks.end(), {track, device, {}});
    t->spans.push_back({ev.name, ev.ts - o->second, ev.dur});
    if (device) stage.device_busy_us += ev.dur;
  }
  for (auto& [run, stages] : file)
    for (auto& [id, stage] : stages) {
      for (TimelineTrack& t : stage.tracks)
        std::sort(t.spans.begin(), t.spans.end(), [](const TimelineSpan& a, const TimelineSpan& b) {
          return a.start_us < b.start_us;
        });
      // The sample, then the host phases in the order they began, then the device's tracks.
      std::stable_sort(stage.tracks.begin(), stage.tracks.end(),
                       [](const TimelineTrack& a, const TimelineTrack& b) {
                         auto rank = [](const TimelineTrack& t) {
                           return t.name == QLatin1String("sample") ? 0 : t.device ? 2 : 1;
                         };
                         if (rank(a) != rank(b)) return rank(a) < rank(b);
                         const double sa = a.spans.empty() ? 0 : a.spans.front().start_us;
                         const double sb = b.spans.empty() ? 0 : b.spans.front().start_us;
                         return sa < sb;
                       });
    }
  return file;
}

QString timeline_path_for(const QString& result_path) {
  QString base = result_path;
  if (base.endsWith(QLatin1String(".json"))) base.chop(5);
  return base + QStringLiteral(".trace.json");
}

}  // namespace sb::viewer
