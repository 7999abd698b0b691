#pragma once
// NVIDIA-only compile probes: does the device's OpenCL compiler accept inline PTX, and which
// mma.sync tensor-core forms does it assemble. Requires the OpenCL C++ header.
#include <CL/opencl.hpp>

#include "probes/probe.h"

namespace sb {

// Fills info.ptx_inline and info.mma_*; build failures go to info.probe_errors, never thrown.
void probe_nvidia_ptx(const cl::Device& device, OpenCLDeviceInfo& info);

}  // namespace sb
