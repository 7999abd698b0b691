#include "harness/cli/run_context.h"

#include <unistd.h>

#include <chrono>
#include <ctime>

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

void remember_argv(int argc, char** argv) {
  argv_store().assign(argv, argv + argc);
}

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
  return ctx;
}

}  // namespace sb::cli
