#pragma once
// The "context" block of a result: when, where, how it was invoked, and the machine's probes.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sb::cli {

void remember_argv(int argc, char** argv);
const std::vector<std::string>& remembered_argv();  // as main() received it
// {name: value} of the environment variables that can change a timed path (STAGEBENCH_*,
// OMP_*, the OpenCL drivers' and the math libraries'), from a null-terminated `environ`.
nlohmann::json timing_environment(char** env);
nlohmann::json run_context(const std::vector<std::string>& papi_events, bool opencl);

}  // namespace sb::cli
