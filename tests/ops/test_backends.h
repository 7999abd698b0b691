#pragma once
// The backends the op tests run on: cpu always, opencl when built and a device exists. One
// instance of each per process, so every OpenCL program is built once (PoCL compiles each on
// first use).
#include <string>
#include <vector>

#include "models/ops/backend.h"

namespace sb::testing {

// "cpu", and "opencl" when built (whether or not a device exists).
std::vector<std::string> backend_names();

// The shared backend of that name, or null with `why` set when there is none here.
Backend* test_backend(const std::string& name, std::string* why);

// The kernels of an OpenCL backend's portable program (empty for any other backend).
std::vector<std::string> program_kernels(Backend& be);

}  // namespace sb::testing
