#include "probes/opencl_select.h"

#include <stdexcept>

#include "probes/probe.h"

namespace sb {

cl::Device select_cl_device(const std::string& filter) {
  const OpenCLInfo opencl = probe_opencl_info(/*compile_probes=*/false);
  if (!opencl.available) throw std::runtime_error("no OpenCL device: " + opencl.reason);
  const OpenCLDeviceInfo* chosen = select_opencl_device(opencl.devices, filter);
  if (chosen == nullptr) {
    std::string names;
    for (const auto& device : opencl.devices) {
      names += "\n  " + std::to_string(device.platform_index) + ":" +
               std::to_string(device.device_index) + " " + device.platform + " / " + device.name;
    }
    throw std::runtime_error("no OpenCL device matches '" + filter + "'; devices:" + names);
  }
  std::vector<cl::Platform> platforms;
  cl::Platform::get(&platforms);
  std::vector<cl::Device> devices;
  platforms.at(chosen->platform_index).getDevices(CL_DEVICE_TYPE_ALL, &devices);
  return devices.at(chosen->device_index);
}

}  // namespace sb
