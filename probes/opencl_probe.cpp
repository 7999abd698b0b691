// OpenCL platforms and devices: identity, limits, extensions, timer resolution, and (NVIDIA
// only) the inline-PTX compile probes. No OpenCL driver, or none compiled in, is an answer.
#include <algorithm>
#include <cctype>
#include <sstream>

#include "probes/probe.h"

#ifdef STAGEBENCH_HAVE_OPENCL
#include <CL/opencl.hpp>

#include "probes/opencl_ptx_probe.h"
#endif

namespace sb {

std::vector<OpenCLDeviceInfo> probe_opencl(bool compile_probes) {
  return probe_opencl_info(compile_probes).devices;
}

#ifdef STAGEBENCH_HAVE_OPENCL

namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string cl_error_text(const cl::Error& error) {
  return std::string(error.what()) + " (" + std::to_string(error.err()) + ")";
}

// One getInfo that may be unsupported by an old driver: the fallback instead of a throw.
template <cl_device_info Name, typename T>
T device_query(const cl::Device& device, T fallback, std::vector<std::string>& errors) {
  try {
    return static_cast<T>(device.getInfo<Name>());
  } catch (const cl::Error& error) {
    errors.push_back("clGetDeviceInfo(" + std::to_string(Name) + "): " + cl_error_text(error));
    return fallback;
  }
}

std::string device_type_name(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "gpu";
  if (type & CL_DEVICE_TYPE_CPU) return "cpu";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

std::vector<std::string> split_words(const std::string& text) {
  std::istringstream words(text);
  std::vector<std::string> out;
  for (std::string word; words >> word;) out.push_back(word);
  return out;
}

OpenCLDeviceInfo describe_device(const cl::Platform& platform, const cl::Device& device,
                                 bool compile_probes) {
  OpenCLDeviceInfo info;
  auto& errors = info.probe_errors;
  info.platform = platform.getInfo<CL_PLATFORM_NAME>();
  info.platform_version = platform.getInfo<CL_PLATFORM_VERSION>();
  info.name = device_query<CL_DEVICE_NAME>(device, std::string("unknown"), errors);
  info.vendor = device_query<CL_DEVICE_VENDOR>(device, std::string(), errors);
  info.driver_version = device_query<CL_DRIVER_VERSION>(device, std::string(), errors);
  info.device_version = device_query<CL_DEVICE_VERSION>(device, std::string(), errors);
  info.opencl_c_version = device_query<CL_DEVICE_OPENCL_C_VERSION>(device, std::string(), errors);
  info.type = device_type_name(device_query<CL_DEVICE_TYPE>(device, cl_device_type{0}, errors));
  info.compute_units = device_query<CL_DEVICE_MAX_COMPUTE_UNITS>(device, uint32_t{0}, errors);
  info.max_clock_mhz = device_query<CL_DEVICE_MAX_CLOCK_FREQUENCY>(device, uint32_t{0}, errors);
  info.global_mem_bytes = device_query<CL_DEVICE_GLOBAL_MEM_SIZE>(device, uint64_t{0}, errors);
  info.local_mem_bytes = device_query<CL_DEVICE_LOCAL_MEM_SIZE>(device, uint64_t{0}, errors);
  info.max_alloc_bytes = device_query<CL_DEVICE_MAX_MEM_ALLOC_SIZE>(device, uint64_t{0}, errors);
  info.extensions = split_words(device_query<CL_DEVICE_EXTENSIONS>(device, std::string(), errors));
  auto has_extension = [&](const char* name) {
    return std::find(info.extensions.begin(), info.extensions.end(), name) != info.extensions.end();
  };
  info.fp16 = has_extension("cl_khr_fp16");
  info.fp64 = has_extension("cl_khr_fp64") ||
              device_query<CL_DEVICE_DOUBLE_FP_CONFIG>(device, cl_device_fp_config{0}, errors) != 0;
  info.timer_resolution_ns =
      device_query<CL_DEVICE_PROFILING_TIMER_RESOLUTION>(device, uint64_t{0}, errors);
  info.is_nvidia = lower(info.platform).find("nvidia") != std::string::npos ||
                   lower(info.vendor).find("nvidia") != std::string::npos;
  // Other vendors' compilers reject asm(): only NVIDIA gets the PTX probes.
  if (compile_probes && info.is_nvidia) probe_nvidia_ptx(device, info);
  return info;
}

}  // namespace

OpenCLInfo probe_opencl_info(bool compile_probes) {
  OpenCLInfo result;
  std::vector<cl::Platform> platforms;
  try {
    cl::Platform::get(&platforms);
  } catch (const cl::Error& error) {
    result.reason = "no OpenCL platform: clGetPlatformIDs failed: " + cl_error_text(error);
    return result;
  }
  std::vector<std::string> platform_errors;
  for (size_t p = 0; p < platforms.size(); ++p) {
    std::vector<cl::Device> devices;
    try {
      platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devices);
      for (size_t d = 0; d < devices.size(); ++d) {
        OpenCLDeviceInfo info = describe_device(platforms[p], devices[d], compile_probes);
        info.platform_index = static_cast<int>(p);
        info.device_index = static_cast<int>(d);
        result.devices.push_back(std::move(info));
      }
    } catch (const cl::Error& error) {
      platform_errors.push_back("platform " + std::to_string(p) + ": " + cl_error_text(error));
    }
  }
  result.available = !result.devices.empty();
  if (platforms.empty()) {
    result.reason = "no OpenCL platform installed";
  } else if (!result.available) {
    result.reason = "OpenCL platforms found but no usable device";
    for (const auto& error : platform_errors) result.reason += "; " + error;
  }
  return result;
}

#else

OpenCLInfo probe_opencl_info(bool compile_probes) {
  OpenCLInfo result;
  result.reason = "built without OpenCL";
  return result;
}

#endif

}  // namespace sb
