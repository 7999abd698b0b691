// Memory from /proc/meminfo; OS from uname and /etc/os-release; virtualization from the
// CPU's hypervisor flag, the CPUID hypervisor leaf and DMI (absent on some VMs).
#include <sys/utsname.h>

#include <cstring>
#include <sstream>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "probes/probe.h"
#include "probes/text_file.h"

namespace sb {

namespace {

// A "Key:   123 kB" line of /proc/meminfo, in bytes; 0 when missing.
uint64_t meminfo_bytes(const std::string& meminfo, const std::string& key) {
  std::istringstream lines(meminfo);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(key + ":", 0) != 0) continue;
    std::istringstream fields(line.substr(key.size() + 1));
    uint64_t kib = 0;
    fields >> kib;
    return kib * 1024;
  }
  return 0;
}

std::string os_release_pretty_name() {
  std::istringstream lines(detail::read_text_file("/etc/os-release"));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("PRETTY_NAME=", 0) != 0) continue;
    std::string value = line.substr(std::strlen("PRETTY_NAME="));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    return value;
  }
  return "unknown";
}

// The hypervisor's CPUID signature ("KVMKVMKVM", "Microsoft Hv", ...), or "".
std::string cpuid_hypervisor_vendor() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
  __cpuid(1, eax, ebx, ecx, edx);
  if ((ecx & (1u << 31)) == 0) return {};
  __cpuid(0x40000000, eax, ebx, ecx, edx);
  char vendor[13] = {};
  std::memcpy(vendor + 0, &ebx, 4);
  std::memcpy(vendor + 4, &ecx, 4);
  std::memcpy(vendor + 8, &edx, 4);
  return detail::trim(vendor);
#else
  return {};
#endif
}

}  // namespace

MemoryInfo probe_memory() {
  const std::string meminfo = detail::read_text_file("/proc/meminfo");
  return {meminfo_bytes(meminfo, "MemTotal"), meminfo_bytes(meminfo, "MemAvailable")};
}

OsInfo probe_os() {
  OsInfo os;
  utsname names{};
  if (uname(&names) == 0) {
    os.kernel = std::string(names.sysname) + " " + names.release + " " + names.version + " " +
                names.machine;
  }
  os.distro = os_release_pretty_name();

  const std::string cpuinfo = detail::read_text_file("/proc/cpuinfo");
  const bool hypervisor_flag = cpuinfo.find(" hypervisor") != std::string::npos;
  const std::string cpuid_vendor = cpuid_hypervisor_vendor();
  const std::string dmi_vendor =
      detail::trim(detail::read_text_file("/sys/class/dmi/id/sys_vendor"));
  const std::string dmi_product =
      detail::trim(detail::read_text_file("/sys/class/dmi/id/product_name"));
  os.virtualized = hypervisor_flag || !cpuid_vendor.empty();
  for (const std::string& part : {cpuid_vendor, dmi_vendor, dmi_product}) {
    if (part.empty()) continue;
    if (!os.hypervisor.empty()) os.hypervisor += " / ";
    os.hypervisor += part;
  }
  return os;
}

}  // namespace sb
