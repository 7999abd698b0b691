#include "models/ops/opencl/wgmma_program.h"

#include <string>

namespace sb::wgmma {
namespace {

// cl_nv_device_attribute_query (CL/cl_ext.h names them; defined here so no vendor header is
// needed).
constexpr cl_device_info kCcMajorNv = 0x4000;
constexpr cl_device_info kCcMinorNv = 0x4001;

std::string build_log(cl_program p, cl_device_id device) {
  size_t n = 0;
  if (clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) != CL_SUCCESS)
    return "";
  std::string s(n, '\0');
  clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

// The program's one binary: for NVIDIA's OpenCL, the PTX text.
bool program_binary(cl_program p, std::string& out) {
  size_t size = 0;
  if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) != CL_SUCCESS)
    return false;
  out.assign(size, '\0');
  unsigned char* ptr = reinterpret_cast<unsigned char*>(out.data());
  if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) != CL_SUCCESS)
    return false;
  while (!out.empty() && out.back() == '\0') out.pop_back();
  return true;
}

std::string code(const char* what, cl_int err) {
  return std::string(what) + " returned " + std::to_string(err);
}

}  // namespace

ProgramBuild build_program(cl_context context, cl_device_id device, const std::string& source,
                           const std::string& options, const std::string& binary_options,
                           int maxnreg, bool keep_original_ptx) {
  ProgramBuild out;
  const char* text = source.c_str();
  const size_t len = source.size();
  cl_int err = CL_SUCCESS;
  cl_program src = clCreateProgramWithSource(context, 1, &text, &len, &err);
  if (err != CL_SUCCESS) {
    out.error = code("clCreateProgramWithSource", err);
    return out;
  }
  err = clBuildProgram(src, 1, &device, options.c_str(), nullptr, nullptr);
  out.source_log = build_log(src, device);
  std::string ptx;
  const bool have_ptx = err == CL_SUCCESS && program_binary(src, ptx);
  clReleaseProgram(src);
  if (err != CL_SUCCESS) {
    out.error = code("clBuildProgram (source)", err) + "\n" + out.source_log;
    return out;
  }
  if (!have_ptx) {
    out.error = "CL_PROGRAM_BINARIES gave no PTX";
    return out;
  }
  out.patched = patch(ptx, maxnreg);
  if (keep_original_ptx) out.original_ptx = std::move(ptx);
  if (!out.patched.error.empty()) {
    out.error = "patch: " + out.patched.error;
    return out;
  }
  if (out.patched.mma == 0) {
    out.error = "no SBW_MMA comment in the compiler's PTX";
    return out;
  }
  const unsigned char* bin = reinterpret_cast<const unsigned char*>(out.patched.ptx.c_str());
  const size_t bin_len = out.patched.ptx.size() + 1;  // with the terminating NUL, as read back
  cl_int status = CL_SUCCESS;
  cl_program p = clCreateProgramWithBinary(context, 1, &device, &bin_len, &bin, &status, &err);
  if (err != CL_SUCCESS || status != CL_SUCCESS) {
    out.error = code("clCreateProgramWithBinary", err != CL_SUCCESS ? err : status);
    if (p) clReleaseProgram(p);
    return out;
  }
  err = clBuildProgram(p, 1, &device, binary_options.c_str(), nullptr, nullptr);
  if (err == CL_INVALID_BUILD_OPTIONS && !binary_options.empty())
    err = clBuildProgram(p, 1, &device, "", nullptr, nullptr);  // a binary may refuse options
  out.binary_log = build_log(p, device);
  if (err != CL_SUCCESS) {
    out.error = code("clBuildProgram (patched binary)", err) + "\n" + out.binary_log;
    clReleaseProgram(p);
    return out;
  }
  out.program = p;
  return out;
}

ComputeCapability compute_capability(cl_device_id device) {
  ComputeCapability cc;
  cl_uint major = 0, minor = 0;
  if (clGetDeviceInfo(device, kCcMajorNv, sizeof major, &major, nullptr) == CL_SUCCESS &&
      clGetDeviceInfo(device, kCcMinorNv, sizeof minor, &minor, nullptr) == CL_SUCCESS) {
    cc.major = static_cast<int>(major);
    cc.minor = static_cast<int>(minor);
  }
  return cc;
}

}  // namespace sb::wgmma
