#include "probes/cpu_load.h"

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <thread>

#include "probes/text_file.h"

namespace sb {

std::vector<CpuTimes> parse_proc_stat(const std::string& text) {
  std::vector<CpuTimes> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || !std::isdigit(line[3])) continue;
    std::istringstream f(line.substr(3));
    CpuTimes t;
    uint64_t v[8] = {};  // user nice system idle iowait irq softirq steal
    f >> t.cpu;
    size_t got = 0;
    while (got < 8 && f >> v[got]) ++got;
    if (!f && got < 4) continue;  // too short to be a CPU line
    t.busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    t.total = t.busy + v[3] + v[4];
    out.push_back(t);
  }
  return out;
}

double busy_cores_between(const std::vector<CpuTimes>& before, const std::vector<CpuTimes>& after,
                          const std::vector<int>& cpus) {
  std::map<int, CpuTimes> b;
  for (const auto& t : before) b[t.cpu] = t;
  double busy = 0;
  for (const auto& a : after) {
    const auto it = b.find(a.cpu);
    if (it == b.end() || std::find(cpus.begin(), cpus.end(), a.cpu) == cpus.end()) continue;
    if (a.total <= it->second.total || a.busy < it->second.busy) continue;
    const double d = static_cast<double>(a.busy - it->second.busy) /
                     static_cast<double>(a.total - it->second.total);
    busy += std::min(1.0, d);
  }
  return busy;
}

std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  if (cpus.empty()) {
    const unsigned n = std::thread::hardware_concurrency();
    for (unsigned c = 0; c < std::max(1u, n); ++c) cpus.push_back(static_cast<int>(c));
  }
  return cpus;
}

CoreLoad probe_core_load(double window_s) {
  CoreLoad load;
  const std::vector<int> cpus = allowed_cpus();
  load.cores = static_cast<int>(cpus.size());
  load.window_s = window_s;
  const auto before = parse_proc_stat(detail::read_text_file("/proc/stat"));
  std::this_thread::sleep_for(std::chrono::duration<double>(window_s));
  const auto after = parse_proc_stat(detail::read_text_file("/proc/stat"));
  if (before.empty() || after.empty()) {
    load.error = "/proc/stat has no per-CPU lines";
    return load;
  }
  load.busy_cores = busy_cores_between(before, after, cpus);
  return load;
}

namespace {

std::string format_busy(const ThreadingPlan& p) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.1f of %d cores busy before the run", p.busy_cores, p.cores);
  return buf;
}

}  // namespace

ThreadingPlan plan_threading(const CoreLoad& load, const std::string& omp_num_threads,
                             const std::string& omp_wait_policy) {
  ThreadingPlan p;
  p.cores = std::max(1, load.cores);
  p.busy_cores = load.busy_cores;
  p.oversubscribed = load.error.empty() && load.busy_cores >= kBusyCoresToAdapt;
  p.threads = p.cores;
  p.wait_policy = "default";
  p.chosen_by = "default";
  if (!omp_num_threads.empty() || !omp_wait_policy.empty()) {
    p.chosen_by = "user";
    if (!omp_num_threads.empty()) p.threads = std::max(1, std::atoi(omp_num_threads.c_str()));
    if (!omp_wait_policy.empty()) p.wait_policy = omp_wait_policy;
    p.note = format_busy(p) + "; OMP_NUM_THREADS/OMP_WAIT_POLICY as the user set them";
    if (p.oversubscribed) p.note += " (oversubscribed: timings may suffer)";
    return p;
  }
  if (!load.error.empty()) {
    p.note = "load not measured (" + load.error + "); OpenMP defaults";
    return p;
  }
  if (!p.oversubscribed) {
    p.note = format_busy(p) + "; OpenMP defaults";
    return p;
  }
  // The part of a core others keep busy is lost to us; a quarter core of noise is not.
  const int taken = static_cast<int>(std::ceil(load.busy_cores - 0.25));
  p.threads = std::max(1, p.cores - taken);
  p.wait_policy = "passive";
  p.chosen_by = "load";
  p.note = format_busy(p) + " (oversubscribed): " + std::to_string(p.threads) + " OpenMP thread" +
           (p.threads == 1 ? "" : "s") + ", passive waiting";
  return p;
}

nlohmann::json to_json(const ThreadingPlan& p) {
  return {{"cores", p.cores},
          {"busy_cores", std::round(p.busy_cores * 100) / 100},
          {"oversubscribed", p.oversubscribed},
          {"threads", p.threads},
          {"wait_policy", p.wait_policy},
          {"chosen_by", p.chosen_by},
          {"note", p.note}};
}

ThreadingPlan threading_plan_from_json(const nlohmann::json& j) {
  ThreadingPlan p;
  p.cores = j.value("cores", 0);
  p.busy_cores = j.value("busy_cores", 0.0);
  p.oversubscribed = j.value("oversubscribed", false);
  p.threads = j.value("threads", 0);
  p.wait_policy = j.value("wait_policy", std::string());
  p.chosen_by = j.value("chosen_by", std::string());
  p.note = j.value("note", std::string());
  return p;
}

}  // namespace sb
