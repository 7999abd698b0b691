#pragma once
// One device's OpenCL context, its single in-order profiling queue, and the programs built on
// it. Each (source, options) pair is built once, lazily, and kept for the runtime's lifetime:
// PoCL takes about a second per build.
#include <CL/opencl.hpp>
#include <map>
#include <string>
#include <utility>

namespace sb {

class ClRuntime {
 public:
  explicit ClRuntime(cl::Device device);

  const cl::Device& device() const { return device_; }
  const cl::Context& context() const { return context_; }
  cl::CommandQueue& queue() { return queue_; }
  std::string device_name() const;
  bool is_nvidia() const { return is_nvidia_; }
  size_t max_work_group_size() const { return max_work_group_size_; }
  // CL_DEVICE_LOCAL_MEM_SIZE, or less under STAGEBENCH_CL_LOCAL_MEM_LIMIT=BYTES: the kernels a
  // device with that little local memory would get (OpenCL promises 32768), on any device.
  size_t local_mem_bytes() const { return local_mem_bytes_; }

  // The program built from `source` with `options`, building it on first use under `key`.
  // Throws std::runtime_error with the build log when the build fails.
  const cl::Program& program(const std::string& key, const std::string& source,
                             const std::string& options);
  // Builds a throwaway program; returns false (and the log) when the compiler rejects it.
  bool compiles(const std::string& source, const std::string& options, std::string* log);

 private:
  cl::Device device_;
  cl::Context context_;
  cl::CommandQueue queue_;
  bool is_nvidia_ = false;
  size_t max_work_group_size_ = 0;
  size_t local_mem_bytes_ = 0;
  std::map<std::string, cl::Program> programs_;
};

}  // namespace sb
