#pragma once
// The OpenCL backend of the op layer: its own kernels plus CLBlast for fp32 GEMMs.
#include <memory>
#include <string>

#include "models/ops/backend.h"

namespace sb {

// device_filter: empty = the first GPU (else the first device of any platform); otherwise a
// case-insensitive substring of the platform or device name, or "P:D" indices. Throws
// std::runtime_error naming the filter and listing the devices when nothing matches.
std::unique_ptr<Backend> make_opencl_backend(const std::string& device_filter);

}  // namespace sb
