// Which PAPI components are enabled and which events really count here. Each event is opened
// alone, started and stopped: a PMU-less VM names PAPI_TOT_CYC but cannot count it.
#include <array>

#include "probes/papi_init.h"
#include "probes/probe.h"

#ifdef STAGEBENCH_HAVE_PAPI
#include <papi.h>
#endif

namespace sb {

std::string papi_event_tier(const std::string& event) {
  static const std::array<const char*, 10> kSoftwareEvents = {
      "TASK-CLOCK",   "CPU-CLOCK",    "PAGE-FAULTS",      "CONTEXT-SWITCHES", "CPU-MIGRATIONS",
      "MINOR-FAULTS", "MAJOR-FAULTS", "ALIGNMENT-FAULTS", "EMULATION-FAULTS", "PERF_COUNT_SW_"};
  if (event.rfind("perf::", 0) != 0) return "hardware";
  const std::string rest = event.substr(6);
  for (const char* software : kSoftwareEvents) {
    if (rest.rfind(software, 0) == 0) return "software";
  }
  return "hardware";
}

#ifdef STAGEBENCH_HAVE_PAPI

namespace {

std::string library_version() {
  const int v = PAPI_get_opt(PAPI_LIB_VERSION, nullptr);
  if (v < 0) return "unknown";
  return std::to_string(PAPI_VERSION_MAJOR(v)) + "." + std::to_string(PAPI_VERSION_MINOR(v)) + "." +
         std::to_string(PAPI_VERSION_REVISION(v)) + "." + std::to_string(PAPI_VERSION_INCREMENT(v));
}

std::vector<PapiComponentInfo> list_components() {
  std::vector<PapiComponentInfo> components;
  const int count = PAPI_num_components();
  for (int index = 0; index < count; ++index) {
    const PAPI_component_info_t* info = PAPI_get_component_info(index);
    if (info == nullptr) continue;
    components.push_back(
        {info->name, info->disabled == 0, info->disabled ? info->disabled_reason : ""});
  }
  return components;
}

// "" when the event counts (add, start and stop all succeed), else the failing step's error.
std::string try_open_event(const std::string& event) {
  int set = PAPI_NULL;
  int rc = PAPI_create_eventset(&set);
  if (rc != PAPI_OK) return "PAPI_create_eventset: " + papi_error_text(rc);
  std::string error;
  rc = PAPI_add_named_event(set, event.c_str());
  if (rc != PAPI_OK) {
    error = "add: " + papi_error_text(rc);
  } else if ((rc = PAPI_start(set)) != PAPI_OK) {
    error = "start: " + papi_error_text(rc);
  } else {
    long long value = 0;
    rc = PAPI_stop(set, &value);
    if (rc != PAPI_OK) error = "stop: " + papi_error_text(rc);
  }
  PAPI_cleanup_eventset(set);
  PAPI_destroy_eventset(&set);
  return error;
}

}  // namespace

PapiInfo probe_papi(const std::vector<std::string>& events) {
  PapiInfo papi;
  const std::string& init_error = papi_init_error();
  if (!init_error.empty()) {
    papi.reason = init_error;
    return papi;
  }
  papi.available = true;
  papi.version = library_version();
  papi.components = list_components();
  for (const auto& event : events) {
    PapiEventStatus status{event, false, try_open_event(event), papi_event_tier(event)};
    status.opened = status.error.empty();
    papi.events.push_back(status);
  }
  return papi;
}

#else

PapiInfo probe_papi(const std::vector<std::string>& events) {
  PapiInfo papi;
  papi.reason = papi_init_error();
  return papi;
}

#endif

}  // namespace sb
