#pragma once
// OpenCL C sources of models/ops/opencl/kernels/, embedded into the binary at build time
// (embed_cl.cmake) so the backend needs no files at run time.
#include <string_view>

namespace sb {

// The text of kernels/<file_name>; throws std::invalid_argument for an unknown name.
std::string_view embedded_cl_source(std::string_view file_name);

}  // namespace sb
