#pragma once
// How busy the cores a run will use are before it starts, and the OpenMP threading that follows.
// A spinning OpenMP pool on cores another process also uses collapses: measured on a 2-core VM
// with a compiler busy on one core, Enformer small stage 0 took 2,253 ms with libgomp's default
// (spinning) wait policy, 697 ms with OMP_WAIT_POLICY=passive and 347 ms with one thread. So a
// run that finds its cores busy uses only the free ones and waits passively, and records why.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sb {

// Cumulative busy and total jiffies of one CPU, from a /proc/stat "cpuN" line.
struct CpuTimes {
  int cpu = -1;
  uint64_t busy = 0;   // user + nice + system + irq + softirq + steal
  uint64_t total = 0;  // busy + idle + iowait
};

// Parses the per-CPU lines of /proc/stat's text (the aggregate "cpu" line is skipped).
std::vector<CpuTimes> parse_proc_stat(const std::string& text);

struct CoreLoad {
  int cores = 0;          // CPUs this process may run on (its affinity mask)
  double busy_cores = 0;  // the sum of their busy fractions over the window
  double window_s = 0;
  std::string error;  // why it could not be measured (then cores is the mask's size only)
};

// The busy fraction of `cpus` between two snapshots, summed; CPUs missing from either count 0.
double busy_cores_between(const std::vector<CpuTimes>& before, const std::vector<CpuTimes>& after,
                          const std::vector<int>& cpus);

// The CPUs of this process's affinity mask.
std::vector<int> allowed_cpus();

// Samples /proc/stat twice, `window_s` apart (the caller idles meanwhile).
CoreLoad probe_core_load(double window_s = 0.15);

// What a run does about the load: OpenMP threads and wait policy, and who chose them.
struct ThreadingPlan {
  int cores = 0;
  double busy_cores = 0;
  bool oversubscribed = false;  // other processes kept at least half a core busy
  int threads = 0;              // OpenMP threads the run uses
  std::string wait_policy;      // "passive", "active" or "default" (libgomp's spin-then-sleep)
  std::string chosen_by;        // "load", "user" (OMP_* set) or "default"
  std::string note;             // one line for a human: what was seen and done
};

// Busy cores at which a run adapts: half a core kept busy by others costs a spinning pool.
inline constexpr double kBusyCoresToAdapt = 0.5;

// The plan for `load`, given the user's OMP_NUM_THREADS and OMP_WAIT_POLICY (empty when unset):
// a user's setting is kept; a quiet machine keeps the defaults; a busy one gets one thread per
// free core (at least one) and passive waiting.
ThreadingPlan plan_threading(const CoreLoad& load, const std::string& omp_num_threads,
                             const std::string& omp_wait_policy);

nlohmann::json to_json(const ThreadingPlan& p);
ThreadingPlan threading_plan_from_json(const nlohmann::json& j);

}  // namespace sb
