#pragma once
// The cl::Device a device filter names (see select_opencl_device in probes/probe.h). Kept apart
// from probe.h so that code without OpenCL never includes the CL headers.
#include <string>

#include <CL/opencl.hpp>

namespace sb {

// Throws std::runtime_error when there is no OpenCL device or none matches the filter.
cl::Device select_cl_device(const std::string& filter);

}  // namespace sb
