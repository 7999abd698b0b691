#pragma once
// Facts about the machine a result was measured on: CPU, memory, OS, build, PAPI and OpenCL.
// Every probe reports what it could not find instead of throwing, so that `stagebench probe`
// and the result's "context" block work on any machine (no PMU, no GPU, no OpenCL driver).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sb {

// ---- CPU ---------------------------------------------------------------------------------
struct CpuInfo {
  std::string model;
  std::string vendor;
  int logical_cores = 0;
  int physical_cores = 0;
  int sockets = 0;
  uint64_t l1d_bytes = 0;
  uint64_t l2_bytes = 0;
  uint64_t l3_bytes = 0;
  double mhz = 0;
  // Only the ISA flags that decide which kernels can run (see kCpuFlagsThatMatter).
  std::vector<std::string> flags;
  bool has(const std::string& flag) const;
};

// The ISA flags worth recording, in /proc/cpuinfo spelling.
extern const std::vector<std::string> kCpuFlagsThatMatter;

CpuInfo probe_cpu();

// ---- Memory, OS, build --------------------------------------------------------------------
struct MemoryInfo {
  uint64_t total_bytes = 0;
  uint64_t available_bytes = 0;
};
MemoryInfo probe_memory();

struct OsInfo {
  std::string kernel;  // uname: sysname release version machine
  std::string distro;  // PRETTY_NAME of /etc/os-release
  bool virtualized = false;
  std::string hypervisor;  // CPUID hypervisor vendor and/or DMI vendor/product, when known
};
OsInfo probe_os();

struct BuildInfo {
  std::string compiler;
  std::string flags;
  std::string type;
  std::string git;
  // Whether tracked files differed from the commit when the binary was built; unset when
  // unknown (no git). A figure from a dirty build traces to no commit.
  std::optional<bool> git_dirty;
  std::string version;
  nlohmann::json libraries;  // {name: version} of the libraries compiled in
};
BuildInfo probe_build();

// ---- PAPI ---------------------------------------------------------------------------------
struct PapiEventStatus {
  std::string name;
  bool opened = false;
  std::string error;  // empty when opened
  std::string tier;   // "hardware" (PMU) or "software" (perf software events)
};

struct PapiComponentInfo {
  std::string name;
  bool enabled = false;
  std::string disabled_reason;
};

struct PapiInfo {
  bool available = false;
  std::string reason;  // why not available
  std::string version;
  std::vector<PapiComponentInfo> components;
  std::vector<PapiEventStatus> events;
};

inline const std::vector<std::string> kDefaultPapiEvents = {"perf::TASK-CLOCK", "perf::PAGE-FAULTS",
                                                            "perf::CONTEXT-SWITCHES",
                                                            "PAPI_TOT_INS", "PAPI_TOT_CYC"};

// "software" for the kernel's perf software events, "hardware" for everything else.
std::string papi_event_tier(const std::string& event);

// Opens each event alone (create, add, start, stop): naming an event is not counting it.
PapiInfo probe_papi(const std::vector<std::string>& events = kDefaultPapiEvents);

// ---- OpenCL -------------------------------------------------------------------------------
struct OpenCLDeviceInfo {
  int platform_index = 0;
  int device_index = 0;  // within its platform
  std::string platform;
  std::string platform_version;
  std::string name;
  std::string vendor;
  std::string driver_version;
  std::string device_version;
  std::string opencl_c_version;
  std::string type;  // cpu, gpu, accelerator, other
  uint32_t compute_units = 0;
  uint32_t max_clock_mhz = 0;
  uint64_t global_mem_bytes = 0;
  uint64_t local_mem_bytes = 0;
  uint64_t max_alloc_bytes = 0;
  std::vector<std::string> extensions;
  bool fp16 = false;
  bool fp64 = false;
  uint64_t timer_resolution_ns = 0;
  bool is_nvidia = false;
  // Compile probes (NVIDIA only): inline PTX accepted, and each mma.sync form.
  bool ptx_inline = false;
  bool mma_f16 = false;
  bool mma_tf32 = false;
  bool mma_s8 = false;
  std::vector<std::string> probe_errors;
};

struct OpenCLInfo {
  bool available = false;
  std::string reason;  // why no devices
  std::vector<OpenCLDeviceInfo> devices;
};

OpenCLInfo probe_opencl_info(bool compile_probes = true);
std::vector<OpenCLDeviceInfo> probe_opencl(bool compile_probes = true);

// filter: empty = first GPU, else first device; "P:D" = platform P, device D; otherwise a
// case-insensitive substring of the platform or device name. nullptr when nothing matches.
const OpenCLDeviceInfo* select_opencl_device(const std::vector<OpenCLDeviceInfo>& devices,
                                             const std::string& filter);

// ---- JSON and text -------------------------------------------------------------------------
nlohmann::json to_json(const CpuInfo& cpu);
nlohmann::json to_json(const MemoryInfo& memory);
nlohmann::json to_json(const OsInfo& os);
nlohmann::json to_json(const BuildInfo& build);
nlohmann::json to_json(const PapiEventStatus& event);
nlohmann::json to_json(const PapiInfo& papi);
nlohmann::json to_json(const OpenCLDeviceInfo& device);
nlohmann::json to_json(const OpenCLInfo& opencl);

struct ProbeOptions {
  std::vector<std::string> papi_events = kDefaultPapiEvents;
  bool opencl_compile_probes = true;
};

// The result's "context" block without date/host/argv (the caller adds those):
// {cpu, memory, os, build, papi, opencl: {available, reason, devices}}.
nlohmann::json probe_context(const ProbeOptions& options = {});

// A readable multi-line summary of a context block, for `stagebench probe`.
std::string format_probe_text(const nlohmann::json& context);

}  // namespace sb
