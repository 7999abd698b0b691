#pragma once
// The probe's OpenCL plumbing (probe_cl.cpp): the NVIDIA device, programs built from source and
// through the wgmma route, buffers and one timed launch.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace probe {

struct ClError : std::runtime_error {
  ClError(const std::string& what, cl_int code)
      : std::runtime_error(what + ": OpenCL error " + std::to_string(code)), code(code) {}
  cl_int code;
};

void check(cl_int err, const std::string& what);
std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);

struct Cl {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  std::string device_name, driver;
};

std::string device_info(cl_device_id d, cl_device_info what);
// The first NVIDIA GPU, with a profiling queue; throws when there is none.
Cl open_nvidia();
std::string build_log(const Cl& cl, cl_program p);
// Builds `source`; writes its build log to out/name-build.txt. Throws with the log on failure.
cl_program build_source(const Cl& cl, const std::string& source, const std::string& options,
                        const std::string& out, const std::string& name);
// The wgmma route: source -> PTX -> patched PTX -> program from binary, through the op layer's
// builder (models/ops/opencl/wgmma_program.h: the code the OpenCL backend uses); the probe
// keeps its files (both PTX texts, both build logs) for inspection.
cl_program build_wgmma(const Cl& cl, const std::string& source, const std::string& options,
                       const std::string& out, const std::string& name, int maxnreg = 0);

cl_mem buffer(const Cl& cl, size_t bytes, const void* host = nullptr);
template <class T>
void set_arg(cl_kernel k, cl_uint i, const T& v) {
  check(clSetKernelArg(k, i, sizeof(T), &v), "clSetKernelArg " + std::to_string(i));
}

std::vector<float> read_floats(const Cl& cl, cl_mem m, size_t n);
// Fills n floats with a NaN, so that an entry a kernel did not write fails the check.
void poison(const Cl& cl, cl_mem m, size_t n);
// One launch's device time in seconds, from its profiling event.
double run_timed(const Cl& cl, cl_kernel k, size_t global, size_t local, size_t global_y = 1);

}  // namespace probe
