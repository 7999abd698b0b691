#pragma once
// The OpenMP threading of a measuring command (run, sweep, infer), chosen from the load on its
// cores before it starts (probes/cpu_load.h). libgomp reads OMP_NUM_THREADS and OMP_WAIT_POLICY
// once, when it is loaded, so a busy machine's plan is applied by executing the binary again
// with them set; the plan travels in STAGEBENCH_THREADING_PLAN and is recorded in the result's
// context ("threading"). STAGEBENCH_ADAPT_THREADS=0 keeps the defaults; a user's own OMP_*
// settings are always kept.
#include <nlohmann/json.hpp>

namespace sb::cli {

// Call first in main(): for a measuring command on busy cores, re-executes this binary with the
// plan's environment (and returns only if that fails). Otherwise records the plan and returns.
void adapt_threading(int argc, char** argv);

// The plan recorded by adapt_threading, or, for commands that did not adapt (probe), one made
// now from a fresh measurement. A JSON object (to_json(ThreadingPlan)).
nlohmann::json threading_context();

}  // namespace sb::cli
