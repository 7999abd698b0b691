// The probes as the "context" block of the stagebench/1 result.
#include "probes/probe.h"

namespace sb {

nlohmann::json to_json(const CpuInfo& cpu) {
  return {{"model", cpu.model},
          {"vendor", cpu.vendor},
          {"logical_cores", cpu.logical_cores},
          {"physical_cores", cpu.physical_cores},
          {"sockets", cpu.sockets},
          {"l1d_bytes", cpu.l1d_bytes},
          {"l2_bytes", cpu.l2_bytes},
          {"l3_bytes", cpu.l3_bytes},
          {"mhz", cpu.mhz},
          {"flags", cpu.flags}};
}

nlohmann::json to_json(const MemoryInfo& memory) {
  return {{"total_bytes", memory.total_bytes}, {"available_bytes", memory.available_bytes}};
}

nlohmann::json to_json(const OsInfo& os) {
  return {{"kernel", os.kernel},
          {"distro", os.distro},
          {"virtualized", os.virtualized},
          {"hypervisor", os.hypervisor}};
}

nlohmann::json to_json(const BuildInfo& build) {
  nlohmann::json out = {{"compiler", build.compiler}, {"flags", build.flags},
                        {"type", build.type},         {"git", build.git},
                        {"version", build.version},   {"libraries", build.libraries}};
  out["git_dirty"] = build.git_dirty ? nlohmann::json(*build.git_dirty) : nlohmann::json();
  return out;
}

nlohmann::json to_json(const PapiEventStatus& event) {
  nlohmann::json out = {{"name", event.name}, {"opened", event.opened}, {"tier", event.tier}};
  if (!event.opened) out["error"] = event.error;
  return out;
}

nlohmann::json to_json(const PapiInfo& papi) {
  nlohmann::json out = {{"available", papi.available}};
  if (!papi.available) {
    out["reason"] = papi.reason;
    return out;
  }
  out["version"] = papi.version;
  out["components"] = nlohmann::json::array();
  for (const auto& component : papi.components) {
    nlohmann::json c = {{"name", component.name}, {"enabled", component.enabled}};
    if (!component.enabled) c["disabled_reason"] = component.disabled_reason;
    out["components"].push_back(c);
  }
  // As the schema has it: {name: "opened" | error}, with the tiers in a map of their own.
  out["events"] = nlohmann::json::object();
  out["event_tiers"] = nlohmann::json::object();
  for (const auto& event : papi.events) {
    out["events"][event.name] = event.opened ? std::string("opened") : event.error;
    out["event_tiers"][event.name] = event.tier;
  }
  return out;
}

nlohmann::json to_json(const OpenCLDeviceInfo& device) {
  return {{"platform_index", device.platform_index},
          {"device_index", device.device_index},
          {"platform", device.platform},
          {"platform_version", device.platform_version},
          {"name", device.name},
          {"vendor", device.vendor},
          {"driver_version", device.driver_version},
          {"device_version", device.device_version},
          {"opencl_c_version", device.opencl_c_version},
          {"type", device.type},
          {"compute_units", device.compute_units},
          {"max_clock_mhz", device.max_clock_mhz},
          {"global_mem_bytes", device.global_mem_bytes},
          {"local_mem_bytes", device.local_mem_bytes},
          {"max_alloc_bytes", device.max_alloc_bytes},
          {"extensions", device.extensions},
          {"fp16", device.fp16},
          {"fp64", device.fp64},
          {"timer_resolution_ns", device.timer_resolution_ns},
          {"is_nvidia", device.is_nvidia},
          {"ptx_inline", device.ptx_inline},
          {"mma_f16", device.mma_f16},
          {"mma_tf32", device.mma_tf32},
          {"mma_s8", device.mma_s8},
          {"probe_errors", device.probe_errors}};
}

nlohmann::json to_json(const OpenCLInfo& opencl) {
  nlohmann::json out = {{"available", opencl.available}, {"devices", nlohmann::json::array()}};
  if (!opencl.available) out["reason"] = opencl.reason;
  for (const auto& device : opencl.devices) out["devices"].push_back(to_json(device));
  return out;
}

nlohmann::json probe_context(const ProbeOptions& options) {
  return {{"cpu", to_json(probe_cpu())},
          {"memory", to_json(probe_memory())},
          {"os", to_json(probe_os())},
          {"build", to_json(probe_build())},
          {"papi", to_json(probe_papi(options.papi_events))},
          {"opencl", to_json(probe_opencl_info(options.opencl_compile_probes))}};
}

}  // namespace sb
