#include "harness/cli/run_context.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <map>
#include <string_view>

#include "harness/cli/threading.h"
#include "probes/probe.h"

namespace sb::cli {
namespace {

std::vector<std::string>& argv_store() {
  static std::vector<std::string> args;
  return args;
}

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

nlohmann::json timing_environment(char** env) {
  // Every variable that can switch a timed path: stagebench's own knobs (the kernel choices,
  // STAGEBENCH_FAULT, STAGEBENCH_CL_SOURCE_DIR), the threading runtimes' and the OpenCL
  // drivers'. Sorted, so equal environments give equal JSON.
  static constexpr std::string_view kPrefixes[] = {
      "STAGEBENCH_", "OMP_",      "GOMP_", "KMP_",     "POCL_",   "DNNL_",
      "ONEDNN_",     "OPENBLAS_", "CUDA_", "OCL_ICD_", "CLBLAST_"};
  std::map<std::string, std::string> found;
  for (char** e = env; e && *e; ++e) {
    const std::string_view entry(*e);
    const size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = entry.substr(0, eq);
    for (std::string_view prefix : kPrefixes)
      if (name.substr(0, prefix.size()) == prefix) {
        found.emplace(name, entry.substr(eq + 1));
        break;
      }
  }
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, value] : found) out[name] = value;
  return out;
}

void remember_argv(int argc, char** argv) {
  argv_store().assign(argv, argv + argc);
}

const std::vector<std::string>& remembered_argv() { return argv_store(); }

nlohmann::json run_context(const std::vector<std::string>& papi_events, bool opencl) {
  ProbeOptions o;
  if (!papi_events.empty()) o.papi_events = papi_events;
  o.opencl_compile_probes = opencl;
  nlohmann::json ctx = probe_context(o);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  ctx["date"] = utc_now();
  ctx["host"] = host;
  ctx["argv"] = argv_store();
  ctx["threading"] = threading_context();
  ctx["environment"] = timing_environment(environ);
  return ctx;
}

}  // namespace sb::cli
