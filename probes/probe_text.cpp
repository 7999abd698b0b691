// `stagebench probe`: the context block as a few readable lines. Reads the JSON (not the
// structs) so that it also prints the context of a result file from another machine.
#include <cstdio>
#include <sstream>

#include "probes/probe.h"

namespace sb {

namespace {

using nlohmann::json;

std::string bytes_text(const json& value) {
  if (!value.is_number()) return "?";
  const double bytes = value.get<double>();
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double scaled = bytes;
  int unit = 0;
  while (scaled >= 1024 && unit < 4) {
    scaled /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", scaled, units[unit]);
  return text;
}

std::string str(const json& object, const char* key) {
  if (!object.is_object() || !object.contains(key)) return "?";
  const json& value = object[key];
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// ", dirty" or ", clean" after the commit; nothing when unknown (older results, no git).
std::string dirty_text(const json& build) {
  const json flag = build.is_object() ? build.value("git_dirty", json()) : json();
  if (!flag.is_boolean()) return "";
  return flag.get<bool>() ? " (dirty: uncommitted changes)" : " (clean)";
}

std::string yes_no(const json& object, const char* key) {
  return object.is_object() && object.value(key, false) ? "yes" : "no";
}

void cpu_lines(const json& cpu, std::ostream& out) {
  out << "CPU      " << str(cpu, "model") << " (" << str(cpu, "vendor") << "), "
      << str(cpu, "logical_cores") << " logical / " << str(cpu, "physical_cores")
      << " physical cores, " << str(cpu, "sockets") << " socket(s), " << str(cpu, "mhz")
      << " MHz\n";
  out << "         caches L1d " << bytes_text(cpu.value("l1d_bytes", json())) << ", L2 "
      << bytes_text(cpu.value("l2_bytes", json())) << ", L3 "
      << bytes_text(cpu.value("l3_bytes", json())) << "\n";
  out << "         flags";
  for (const auto& flag : cpu.value("flags", json::array())) out << " " << flag.get<std::string>();
  out << "\n";
}

void system_lines(const json& context, std::ostream& out) {
  const json memory = context.value("memory", json::object());
  out << "Memory   " << bytes_text(memory.value("total_bytes", json())) << " total, "
      << bytes_text(memory.value("available_bytes", json())) << " available\n";
  const json os = context.value("os", json::object());
  out << "OS       " << str(os, "distro") << "; " << str(os, "kernel") << "\n";
  out << "         virtualized: " << yes_no(os, "virtualized");
  if (!os.value("hypervisor", std::string()).empty()) out << " (" << str(os, "hypervisor") << ")";
  out << "\n";
  const json build = context.value("build", json::object());
  out << "Build    " << str(build, "compiler") << ", " << str(build, "type") << ", git "
      << str(build, "git") << dirty_text(build) << ", version " << str(build, "version") << "\n";
  out << "         flags: " << str(build, "flags") << "\n";
  if (const json threading = context.value("threading", json::object()); !threading.empty())
    out << "Load     " << str(threading, "note") << "\n";
}

void papi_lines(const json& papi, std::ostream& out) {
  if (!papi.value("available", false)) {
    out << "PAPI     not available: " << str(papi, "reason") << "\n";
    return;
  }
  out << "PAPI     " << str(papi, "version") << "\n";
  for (const auto& component : papi.value("components", json::array())) {
    out << "         component " << str(component, "name");
    if (!component.value("enabled", false)) {
      out << " disabled: " << str(component, "disabled_reason");
    }
    out << "\n";
  }
  const json tiers = papi.value("event_tiers", json::object());
  const json events = papi.value("events", json::object());
  for (const auto& [name, status] : events.items()) {
    const bool opened = status == "opened";
    out << "         " << (opened ? "opened " : "FAILED ") << name << " ["
        << str(tiers, name.c_str()) << "]";
    if (!opened) out << ": " << (status.is_string() ? status.get<std::string>() : status.dump());
    out << "\n";
  }
}

void opencl_lines(const json& opencl, std::ostream& out) {
  if (!opencl.value("available", false)) {
    out << "OpenCL   not available: " << str(opencl, "reason") << "\n";
    return;
  }
  for (const auto& device : opencl.value("devices", json::array())) {
    out << "OpenCL   " << str(device, "platform_index") << ":" << str(device, "device_index") << " "
        << str(device, "platform") << " / " << str(device, "name") << " (" << str(device, "type")
        << ")\n";
    out << "           " << str(device, "device_version") << ", driver "
        << str(device, "driver_version") << ", " << str(device, "opencl_c_version") << "\n";
    out << "           " << str(device, "compute_units") << " compute units @ "
        << str(device, "max_clock_mhz") << " MHz, global "
        << bytes_text(device.value("global_mem_bytes", json())) << ", max alloc "
        << bytes_text(device.value("max_alloc_bytes", json())) << ", local "
        << bytes_text(device.value("local_mem_bytes", json())) << "\n";
    out << "           fp16 " << yes_no(device, "fp16") << ", fp64 " << yes_no(device, "fp64")
        << ", timer resolution " << str(device, "timer_resolution_ns") << " ns";
    if (device.value("is_nvidia", false)) {
      out << ", inline PTX " << yes_no(device, "ptx_inline") << ", mma f16 "
          << yes_no(device, "mma_f16") << ", tf32 " << yes_no(device, "mma_tf32") << ", s8 "
          << yes_no(device, "mma_s8");
    }
    out << "\n";
    for (const auto& error : device.value("probe_errors", json::array())) {
      out << "           probe error: " << error.get<std::string>() << "\n";
    }
  }
}

}  // namespace

std::string format_probe_text(const nlohmann::json& context) {
  std::ostringstream out;
  cpu_lines(context.value("cpu", json::object()), out);
  system_lines(context, out);
  papi_lines(context.value("papi", json::object()), out);
  opencl_lines(context.value("opencl", json::object()), out);
  return out.str();
}

}  // namespace sb
