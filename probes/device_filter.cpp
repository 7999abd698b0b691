// Picks one probed OpenCL device from a user's --device filter.
#include <algorithm>
#include <cctype>
#include <regex>

#include "probes/probe.h"

namespace sb {

namespace {

bool contains_ignoring_case(const std::string& text, const std::string& part) {
  auto it = std::search(text.begin(), text.end(), part.begin(), part.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

}  // namespace

const OpenCLDeviceInfo* select_opencl_device(const std::vector<OpenCLDeviceInfo>& devices,
                                             const std::string& filter) {
  if (devices.empty()) return nullptr;
  if (filter.empty()) {
    for (const auto& device : devices) {
      if (device.type == "gpu") return &device;
    }
    return &devices.front();
  }
  static const std::regex kIndices(R"((\d+):(\d+))");
  std::smatch match;
  if (std::regex_match(filter, match, kIndices)) {
    const int platform = std::stoi(match[1].str());
    const int index = std::stoi(match[2].str());
    for (const auto& device : devices) {
      if (device.platform_index == platform && device.device_index == index) return &device;
    }
    return nullptr;
  }
  for (const auto& device : devices) {
    if (contains_ignoring_case(device.name, filter) ||
        contains_ignoring_case(device.platform, filter)) {
      return &device;
    }
  }
  return nullptr;
}

}  // namespace sb
