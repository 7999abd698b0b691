#include "models/ops/opencl/device_select.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <stdexcept>
#include <vector>

namespace sb {
namespace {

struct Candidate {
  size_t platform_index;
  size_t device_index;
  std::string platform_name;
  std::string device_name;
  cl_device_type type;
  cl::Device device;
};

std::vector<Candidate> all_devices() {
  std::vector<Candidate> out;
  std::vector<cl::Platform> platforms;
  // An ICD loader with no platforms reports CL_PLATFORM_NOT_FOUND_KHR as an error.
  try {
    cl::Platform::get(&platforms);
  } catch (const cl::Error&) {
    return out;
  }
  for (size_t p = 0; p < platforms.size(); ++p) {
    std::vector<cl::Device> devices;
    try {
      platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devices);
    } catch (const cl::Error&) {
      continue;  // a platform without devices
    }
    for (size_t d = 0; d < devices.size(); ++d)
      out.push_back({p, d, platforms[p].getInfo<CL_PLATFORM_NAME>(),
                     devices[d].getInfo<CL_DEVICE_NAME>(), devices[d].getInfo<CL_DEVICE_TYPE>(),
                     devices[d]});
  }
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string describe(const std::vector<Candidate>& devices) {
  if (devices.empty()) return "  (no OpenCL platform or device found)\n";
  std::string s;
  for (const auto& c : devices)
    s += "  " + std::to_string(c.platform_index) + ":" + std::to_string(c.device_index) + " " +
         c.platform_name + " / " + c.device_name + "\n";
  return s;
}

const Candidate* find(const std::vector<Candidate>& devices, const std::string& filter) {
  if (devices.empty()) return nullptr;
  if (filter.empty()) {
    for (const auto& c : devices)
      if (c.type & CL_DEVICE_TYPE_GPU) return &c;
    return &devices.front();
  }
  std::smatch m;
  if (std::regex_match(filter, m, std::regex(R"((\d+):(\d+))"))) {
    size_t p = std::stoul(m[1]), d = std::stoul(m[2]);
    for (const auto& c : devices)
      if (c.platform_index == p && c.device_index == d) return &c;
    return nullptr;
  }
  const std::string needle = lower(filter);
  for (const auto& c : devices)
    if (lower(c.platform_name).find(needle) != std::string::npos ||
        lower(c.device_name).find(needle) != std::string::npos)
      return &c;
  return nullptr;
}

}  // namespace

std::string list_opencl_devices() {
  return describe(all_devices());
}

cl::Device select_opencl_device(const std::string& filter) {
  const auto devices = all_devices();
  if (const Candidate* c = find(devices, filter)) return c->device;
  throw std::runtime_error("no OpenCL device matches the filter \"" + filter +
                           "\"; devices present:\n" + describe(devices));
}

}  // namespace sb
