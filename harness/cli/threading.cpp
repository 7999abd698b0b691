#include "harness/cli/threading.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>

#include "probes/cpu_load.h"

namespace sb::cli {
namespace {

constexpr const char* kPlanVar = "STAGEBENCH_THREADING_PLAN";

std::optional<ThreadingPlan>& recorded() {
  static std::optional<ThreadingPlan> plan;
  return plan;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool measures(int argc, char** argv) {
  if (argc < 2) return false;
  const std::string cmd = argv[1];
  return cmd == "run" || cmd == "sweep" || cmd == "infer";
}

}  // namespace

void adapt_threading(int argc, char** argv) {
  if (const std::string carried = env(kPlanVar); !carried.empty()) {
    // The second execution: the plan is in force (libgomp has read it); keep it for the context
    // and clear the variables, so that what this process starts chooses for itself.
    try {
      recorded() = threading_plan_from_json(nlohmann::json::parse(carried));
      std::cerr << "stagebench: " << recorded()->note << '\n';
    } catch (const std::exception&) {
    }
    unsetenv(kPlanVar);
    unsetenv("OMP_NUM_THREADS");
    unsetenv("OMP_WAIT_POLICY");
    return;
  }
  if (!measures(argc, argv) || env("STAGEBENCH_ADAPT_THREADS") == "0") return;
  const ThreadingPlan plan =
      plan_threading(probe_core_load(), env("OMP_NUM_THREADS"), env("OMP_WAIT_POLICY"));
  recorded() = plan;
  if (plan.oversubscribed && plan.chosen_by == "user")
    std::cerr << "stagebench: " << plan.note << '\n';
  if (plan.chosen_by != "load") return;
  setenv("OMP_NUM_THREADS", std::to_string(plan.threads).c_str(), 1);
  setenv("OMP_WAIT_POLICY", plan.wait_policy.c_str(), 1);
  setenv(kPlanVar, to_json(plan).dump().c_str(), 1);
  execv("/proc/self/exe", argv);
  // Not re-executed (no /proc?): this process keeps libgomp's defaults, and says so.
  const std::string why = std::strerror(errno);
  unsetenv(kPlanVar);
  unsetenv("OMP_NUM_THREADS");
  unsetenv("OMP_WAIT_POLICY");
  recorded()->threads = plan.cores;
  recorded()->wait_policy = "default";
  recorded()->chosen_by = "default";
  recorded()->note += " not applied: re-execution failed (" + why + ")";
}

nlohmann::json threading_context() {
  if (!recorded())
    recorded() = plan_threading(probe_core_load(), env("OMP_NUM_THREADS"), env("OMP_WAIT_POLICY"));
  return to_json(*recorded());
}

}  // namespace sb::cli
