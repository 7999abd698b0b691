#pragma once
// The "context" block of a result: when, where, how it was invoked, and the machine's probes.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sb::cli {

void remember_argv(int argc, char** argv);
nlohmann::json run_context(const std::vector<std::string>& papi_events, bool opencl);

}  // namespace sb::cli
