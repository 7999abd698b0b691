#include "models/ops/opencl/cl_runtime.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "models/ops/knobs.h"

namespace sb {
namespace {

std::string build_log(const cl::Program& program, const cl::Device& device) {
  try {
    return program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device);
  } catch (const cl::Error&) {
    return "(no build log)";
  }
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// STAGEBENCH_CL_BUILD_LOG=1: every program's build log on stderr, with ptxas's register and
// spill counts on NVIDIA (-cl-nv-verbose), to see what a kernel costs before timing it.
bool build_log_wanted() {
  return parse_knob("STAGEBENCH_CL_BUILD_LOG", std::getenv("STAGEBENCH_CL_BUILD_LOG"), false,
                    {{"1", true}, {"on", true}, {"0", false}, {"off", false}});
}

// STAGEBENCH_CL_BINARIES=DIR: every program's binary written to DIR/<program>.bin, on NVIDIA
// its PTX, which `ptxas -v` turns into every kernel's registers and spills: the build log that
// -cl-nv-verbose fills is cut short by the driver on a program of many kernels.
void write_binary(const cl::Program& program, const std::string& key) {
  const char* dir = std::getenv("STAGEBENCH_CL_BINARIES");
  if (!dir || !*dir) return;
  const auto binaries = program.getInfo<CL_PROGRAM_BINARIES>();
  const std::string path = std::string(dir) + "/" + key + ".bin";
  std::ofstream out(path, std::ios::binary);
  for (const auto& b : binaries) out.write(reinterpret_cast<const char*>(b.data()), b.size());
  if (!out) std::cerr << "stagebench: cannot write " << path << " (STAGEBENCH_CL_BINARIES)\n";
}

}  // namespace

ClRuntime::ClRuntime(cl::Device device)
    : device_(std::move(device)),
      context_(device_),
      queue_(context_, device_, CL_QUEUE_PROFILING_ENABLE) {
  const cl::Platform platform(device_.getInfo<CL_DEVICE_PLATFORM>());
  is_nvidia_ = contains(platform.getInfo<CL_PLATFORM_NAME>(), "NVIDIA") ||
               contains(device_.getInfo<CL_DEVICE_VENDOR>(), "NVIDIA");
  max_work_group_size_ = device_.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  local_mem_bytes_ = device_.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  // 99999999999999999999 is refused, not read as ULLONG_MAX (no limit) without a word.
  const long long limit = read_positive_count_knob("STAGEBENCH_CL_LOCAL_MEM_LIMIT", 0);
  if (limit > 0) local_mem_bytes_ = std::min<size_t>(local_mem_bytes_, limit);
}

std::string ClRuntime::device_name() const {
  return device_.getInfo<CL_DEVICE_NAME>();
}

const cl::Program& ClRuntime::program(const std::string& key, const std::string& source,
                                      const std::string& options) {
  const std::string cache_key = key + '\n' + options;
  if (auto it = programs_.find(cache_key); it != programs_.end()) return it->second;
  cl::Program program(context_, source);
  const bool verbose = build_log_wanted();
  const std::string used = verbose && is_nvidia_ ? options + " -cl-nv-verbose" : options;
  try {
    program.build({device_}, used.c_str());
    if (verbose)
      std::cerr << "stagebench: build log of OpenCL program '" << key << "' (" << used << "):\n"
                << build_log(program, device_) << '\n';
    write_binary(program, key);
  } catch (const cl::Error& e) {
    throw std::runtime_error("OpenCL program '" + key + "' failed to build on " + device_name() +
                             " (" + e.what() + ", options '" + options + "'):\n" +
                             build_log(program, device_));
  }
  return programs_.emplace(cache_key, std::move(program)).first->second;
}

bool ClRuntime::compiles(const std::string& source, const std::string& options, std::string* log) {
  cl::Program program(context_, source);
  try {
    program.build({device_}, options.c_str());
    return true;
  } catch (const cl::Error&) {
    if (log) *log = build_log(program, device_);
    return false;
  }
}

}  // namespace sb
