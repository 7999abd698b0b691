#pragma once
// What a file must hold to be a trace in Chrome's Trace Event Format (JSON Object Format), as
// far as `run --timeline` uses it: the checks a viewer relies on, each failure named.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace sb::testing {

inline std::vector<std::string> trace_event_format_problems(const nlohmann::json& doc) {
  std::vector<std::string> problems;
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array())
    return {"no traceEvents array"};
  if (doc.contains("displayTimeUnit") && doc["displayTimeUnit"] != "ms" &&
      doc["displayTimeUnit"] != "ns")
    problems.push_back("displayTimeUnit is neither ms nor ns");
  std::set<int> named_processes;
  std::set<std::pair<int, int>> named_threads, used_threads;
  for (const auto& e : doc["traceEvents"]) {
    const std::string where = e.dump().substr(0, 120);
    if (!e.is_object() || !e.contains("ph") || !e["ph"].is_string() || !e.contains("name") ||
        !e["name"].is_string() || !e.contains("pid") || !e["pid"].is_number_integer() ||
        !e.contains("tid") || !e["tid"].is_number_integer()) {
      problems.push_back("event without ph, name, pid or tid: " + where);
      continue;
    }
    const std::string ph = e["ph"];
    const int pid = e["pid"], tid = e["tid"];
    if (ph == "M") {
      if (!e.contains("args") || !e["args"].contains("name") || !e["args"]["name"].is_string())
        problems.push_back("metadata event without args.name: " + where);
      else if (e["name"] == "process_name")
        named_processes.insert(pid);
      else if (e["name"] == "thread_name")
        named_threads.insert({pid, tid});
      else
        problems.push_back("unexpected metadata event: " + where);
    } else if (ph == "X") {
      if (!e.contains("ts") || !e["ts"].is_number() || e["ts"].get<double>() < 0)
        problems.push_back("complete event without a ts >= 0: " + where);
      if (!e.contains("dur") || !e["dur"].is_number() || e["dur"].get<double>() < 0)
        problems.push_back("complete event without a dur >= 0: " + where);
      used_threads.insert({pid, tid});
    } else {
      problems.push_back("unexpected phase '" + ph + "': " + where);
    }
  }
  for (const auto& [pid, tid] : used_threads) {
    if (!named_processes.count(pid))
      problems.push_back("process " + std::to_string(pid) + " unnamed");
    if (!named_threads.count({pid, tid}))
      problems.push_back("thread " + std::to_string(pid) + "/" + std::to_string(tid) + " unnamed");
  }
  return problems;
}

}  // namespace sb::testing
