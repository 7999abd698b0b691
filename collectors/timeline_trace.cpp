#include "collectors/timeline_trace.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>

namespace sb {
namespace {

constexpr int kSampleTrack = 1;
constexpr int kDeviceTrack = 2;
constexpr int kFirstPhaseTrack = 3;

double micros(int64_t ns) {
  return static_cast<double>(ns) / 1e3;
}

nlohmann::json name_event(const char* what, int pid, int tid, const std::string& name) {
  return {{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}};
}

nlohmann::json complete(const std::string& name, const char* category, int pid, int tid,
                        int64_t begin_ns, int64_t end_ns, nlohmann::json args) {
  return {{"name", name},
          {"cat", category},
          {"ph", "X"},
          {"pid", pid},
          {"tid", tid},
          {"ts", micros(begin_ns)},
          {"dur", micros(std::max<int64_t>(0, end_ns - begin_ns))},
          {"args", std::move(args)}};
}

// Device clock -> host clock for one captured sample (the header says why this anchor).
int64_t device_offset(const StageTimeline& s) {
  uint64_t anchor = std::numeric_limits<uint64_t>::max();
  for (const auto& k : s.kernels)
    if (k.queued_ns > 0) anchor = std::min(anchor, k.queued_ns);
  if (anchor == std::numeric_limits<uint64_t>::max())  // no QUEUED times: the first start
    for (const auto& k : s.kernels) anchor = std::min(anchor, k.start_ns);
  if (anchor == std::numeric_limits<uint64_t>::max()) return 0;
  return static_cast<int64_t>(s.host_begin_ns) - static_cast<int64_t>(anchor);
}

}  // namespace

nlohmann::json chrome_trace(const std::vector<StageTimeline>& stages) {
  nlohmann::json events = nlohmann::json::array();
  uint64_t origin = std::numeric_limits<uint64_t>::max();
  for (const auto& s : stages) origin = std::min(origin, s.host_begin_ns);
  const auto host = [&](uint64_t t) {
    return static_cast<int64_t>(t) - static_cast<int64_t>(origin);
  };
  std::map<std::string, int> pids;
  std::map<std::pair<int, std::string>, int> phase_tracks;
  std::map<int, int> next_track;
  for (const auto& s : stages) {
    auto [it, added] = pids.emplace(s.run, static_cast<int>(pids.size()) + 1);
    const int pid = it->second;
    if (added) {
      events.push_back(name_event("process_name", pid, 0, s.run));
      events.push_back(name_event("thread_name", pid, kSampleTrack, "samples (host)"));
      events.push_back(name_event("thread_name", pid, kDeviceTrack, "device commands"));
      next_track[pid] = kFirstPhaseTrack;
    }
    const double device_ms = static_cast<double>(s.device_ns) / 1e6;
    events.push_back(
        complete(s.stage, "sample", pid, kSampleTrack, host(s.host_begin_ns), host(s.host_end_ns),
                 {{"stage", s.stage}, {"device_ms", device_ms}, {"commands", s.kernels.size()}}));
    for (const auto& r : s.phases) {
      auto [track, fresh] = phase_tracks.emplace(std::make_pair(pid, r.name), next_track[pid]);
      if (fresh) {
        ++next_track[pid];
        events.push_back(name_event("thread_name", pid, track->second, "host: " + r.name));
      }
      events.push_back(complete(r.name, "host", pid, track->second, host(r.begin_ns),
                                host(r.end_ns), {{"stage", s.stage}}));
    }
    const int64_t offset = device_offset(s);
    for (const auto& k : s.kernels) {
      const int64_t start = static_cast<int64_t>(k.start_ns) + offset;
      const int64_t end = static_cast<int64_t>(k.end_ns) + offset;
      nlohmann::json args = {{"stage", s.stage}};
      if (k.queued_ns > 0 && k.start_ns >= k.queued_ns)
        args["queued_to_start_us"] = micros(static_cast<int64_t>(k.start_ns - k.queued_ns));
      events.push_back(complete(k.name, "device", pid, kDeviceTrack,
                                start - static_cast<int64_t>(origin),
                                end - static_cast<int64_t>(origin), std::move(args)));
    }
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ns"},
          {"otherData",
           {{"producer", "stagebench run --timeline"},
            {"clocks",
             "host: steady_clock from the first captured sample; device: each sample's commands "
             "placed so that its earliest QUEUED time is the sample's host start"}}}};
}

}  // namespace sb
