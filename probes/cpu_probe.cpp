// CPU facts from /proc/cpuinfo and the cache description of cpu0 in sysfs.
#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "probes/probe.h"
#include "probes/text_file.h"

namespace sb {

const std::vector<std::string> kCpuFlagsThatMatter = {
    "sse4_2",      "avx",         "avx2",     "fma",      "avx512f", "avx512bw",
    "avx512_vnni", "avx512_bf16", "amx_bf16", "amx_int8", "avx_vnni"};

bool CpuInfo::has(const std::string& flag) const {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

namespace {

// Splits "key\t: value" lines; returns false for lines without a colon.
bool split_cpuinfo_line(const std::string& line, std::string& key, std::string& value) {
  const size_t colon = line.find(':');
  if (colon == std::string::npos) return false;
  key = detail::trim(line.substr(0, colon));
  value = detail::trim(line.substr(colon + 1));
  return true;
}

void read_cpuinfo(CpuInfo& cpu) {
  std::istringstream lines(detail::read_text_file("/proc/cpuinfo"));
  std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
  std::set<std::string> packages;
  std::string physical_id;
  std::string line, key, value;
  while (std::getline(lines, line)) {
    if (!split_cpuinfo_line(line, key, value)) continue;
    if (key == "processor") {
      ++cpu.logical_cores;
    } else if (key == "model name" && cpu.model.empty()) {
      cpu.model = value;
    } else if (key == "vendor_id" && cpu.vendor.empty()) {
      cpu.vendor = value;
    } else if (key == "cpu MHz" && cpu.mhz == 0) {
      cpu.mhz = std::strtod(value.c_str(), nullptr);
    } else if (key == "physical id") {
      physical_id = value;
      packages.insert(value);
    } else if (key == "core id") {
      cores.insert({physical_id, value});
    } else if ((key == "flags" || key == "Features") && cpu.flags.empty()) {
      std::istringstream words(value);
      std::set<std::string> present;
      for (std::string word; words >> word;) present.insert(word);
      for (const auto& flag : kCpuFlagsThatMatter) {
        if (present.count(flag)) cpu.flags.push_back(flag);
      }
    }
  }
  cpu.physical_cores = static_cast<int>(cores.size());
  cpu.sockets = static_cast<int>(packages.size());
}

void read_caches(CpuInfo& cpu) {
  const std::string base = "/sys/devices/system/cpu/cpu0/cache/index";
  for (int index = 0; index < 16; ++index) {
    const std::string dir = base + std::to_string(index) + "/";
    const std::string level = detail::trim(detail::read_text_file(dir + "level"));
    if (level.empty()) break;
    const std::string type = detail::trim(detail::read_text_file(dir + "type"));
    const uint64_t bytes = detail::parse_size_with_suffix(detail::read_text_file(dir + "size"));
    if (level == "1" && type == "Data") cpu.l1d_bytes = bytes;
    if (level == "2") cpu.l2_bytes = bytes;
    if (level == "3") cpu.l3_bytes = bytes;
  }
}

}  // namespace

CpuInfo probe_cpu() {
  CpuInfo cpu;
  read_cpuinfo(cpu);
  read_caches(cpu);
  // Architectures whose /proc/cpuinfo lacks these lines still get usable counts.
  if (cpu.logical_cores == 0)
    cpu.logical_cores = static_cast<int>(std::thread::hardware_concurrency());
  if (cpu.physical_cores == 0) cpu.physical_cores = cpu.logical_cores;
  if (cpu.sockets == 0) cpu.sockets = 1;
  if (cpu.model.empty()) cpu.model = "unknown";
  const uint64_t max_khz = detail::parse_size_with_suffix(
      detail::read_text_file("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"));
  if (cpu.mhz == 0 && max_khz > 0) cpu.mhz = static_cast<double>(max_khz) / 1000.0;
  return cpu;
}

}  // namespace sb
