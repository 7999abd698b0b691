#pragma once
// Picks one OpenCL device from a user's filter string.
#include <CL/opencl.hpp>
#include <string>

namespace sb {

// filter: empty = the first GPU of any platform, else the first device of any platform;
// "P:D" = platform P, device D (indices as listed); otherwise a case-insensitive substring of
// the platform or the device name (first match). Throws std::runtime_error naming the filter
// and listing the devices that exist when nothing matches or no device exists.
cl::Device select_opencl_device(const std::string& filter);

// "0:0 <platform> / <device>" lines, one per device, for error messages and logs.
std::string list_opencl_devices();

}  // namespace sb
