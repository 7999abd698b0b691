// The probe's OpenCL plumbing: the NVIDIA device, programs built from source and through the
// wgmma route (the op layer's builder), buffers and one timed launch (wgmma_probe.cpp).
#include "probes/wgmma/probe_cl.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "models/ops/opencl/wgmma_program.h"

namespace probe {

using sb::wgmma::Patched;

void check(cl_int err, const std::string& what) {
  if (err != CL_SUCCESS) throw ClError(what, err);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + path);
}

std::string device_info(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  clGetDeviceInfo(d, what, 0, nullptr, &n);
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

Cl open_nvidia() {
  cl_uint np = 0;
  check(clGetPlatformIDs(0, nullptr, &np), "clGetPlatformIDs");
  std::vector<cl_platform_id> ps(np);
  check(clGetPlatformIDs(np, ps.data(), nullptr), "clGetPlatformIDs");
  Cl cl;
  for (auto p : ps) {
    char name[256] = {};
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
    if (!std::strstr(name, "NVIDIA")) continue;
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 1, &cl.device, &nd) != CL_SUCCESS || nd == 0)
      continue;
    cl.platform = p;
    break;
  }
  if (!cl.device) throw std::runtime_error("no NVIDIA OpenCL GPU");
  cl.device_name = device_info(cl.device, CL_DEVICE_NAME);
  cl.driver = device_info(cl.device, CL_DRIVER_VERSION);
  cl_int err;
  cl.context = clCreateContext(nullptr, 1, &cl.device, nullptr, nullptr, &err);
  check(err, "clCreateContext");
  cl.queue = clCreateCommandQueue(cl.context, cl.device, CL_QUEUE_PROFILING_ENABLE, &err);
  check(err, "clCreateCommandQueue");
  return cl;
}

std::string build_log(const Cl& cl, cl_program p) {
  size_t n = 0;
  clGetProgramBuildInfo(p, cl.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string s(n, '\0');
  clGetProgramBuildInfo(p, cl.device, CL_PROGRAM_BUILD_LOG, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

cl_program build_source(const Cl& cl, const std::string& source, const std::string& options,
                        const std::string& out, const std::string& name) {
  const char* text = source.c_str();
  const size_t len = source.size();
  cl_int err;
  cl_program p = clCreateProgramWithSource(cl.context, 1, &text, &len, &err);
  check(err, name + ": clCreateProgramWithSource");
  err = clBuildProgram(p, 1, &cl.device, options.c_str(), nullptr, nullptr);
  const std::string log = build_log(cl, p);
  write_file(out + "/" + name + "-build.txt", "options: " + options + "\n" + log);
  if (err != CL_SUCCESS) throw ClError(name + ": clBuildProgram (source)\n" + log, err);
  return p;
}

cl_program build_wgmma(const Cl& cl, const std::string& source, const std::string& options,
                       const std::string& out, const std::string& name, int maxnreg) {
  sb::wgmma::ProgramBuild b = sb::wgmma::build_program(cl.context, cl.device, source, options,
                                                       "-cl-nv-verbose", maxnreg, true);
  write_file(out + "/" + name + "-source-build.txt", "options: " + options + "\n" + b.source_log);
  if (!b.original_ptx.empty()) write_file(out + "/" + name + ".orig.ptx", b.original_ptx);
  if (!b.patched.ptx.empty()) write_file(out + "/" + name + ".ptx", b.patched.ptx);
  const Patched& pt = b.patched;
  std::printf(
      "%s: PTX %s | %s -> patched: %d wgmma.mma_async, %d fence, %d commit, %d wait, "
      "%d proxy fence\n",
      name.c_str(), pt.version_before.c_str(), pt.target_before.c_str(), pt.mma, pt.fence,
      pt.commit, pt.wait, pt.proxy_fence);
  write_file(out + "/" + name + "-binary-build.txt", b.binary_log);
  std::printf("%s: binary build %s; log: %s\n", name.c_str(), b.error.empty() ? "ok" : "failed",
              b.binary_log.c_str());
  if (!b.error.empty()) throw std::runtime_error(name + ": " + b.error);
  return b.program;
}

cl_mem buffer(const Cl& cl, size_t bytes, const void* host) {
  cl_int err;
  cl_mem m = clCreateBuffer(cl.context, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0),
                            bytes, const_cast<void*>(host), &err);
  check(err, "clCreateBuffer " + std::to_string(bytes));
  return m;
}

std::vector<float> read_floats(const Cl& cl, cl_mem m, size_t n) {
  std::vector<float> v(n);
  check(clEnqueueReadBuffer(cl.queue, m, CL_TRUE, 0, n * 4, v.data(), 0, nullptr, nullptr),
        "clEnqueueReadBuffer");
  return v;
}

void poison(const Cl& cl, cl_mem m, size_t n) {
  const uint32_t nan = 0x7FC00001u;
  check(clEnqueueFillBuffer(cl.queue, m, &nan, 4, 0, n * 4, 0, nullptr, nullptr), "fill");
  check(clFinish(cl.queue), "clFinish");
}

double run_timed(const Cl& cl, cl_kernel k, size_t global, size_t local, size_t global_y) {
  const size_t g[2] = {global, global_y}, l[2] = {local, 1};
  cl_event e;
  check(clEnqueueNDRangeKernel(cl.queue, k, 2, nullptr, g, l, 0, nullptr, &e), "launch");
  check(clWaitForEvents(1, &e), "clWaitForEvents");
  cl_ulong t0 = 0, t1 = 0;
  clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof t0, &t0, nullptr);
  clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t1, &t1, nullptr);
  clReleaseEvent(e);
  return static_cast<double>(t1 - t0) * 1e-9;
}

}  // namespace probe
