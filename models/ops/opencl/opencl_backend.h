#pragma once
// The OpenCL backend of the op layer: its own kernels plus CLBlast for fp32 GEMMs.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "models/ops/backend.h"

namespace sb {

// device_filter: empty = the first GPU (else the first device of any platform); otherwise a
// case-insensitive substring of the platform or device name, or "P:D" indices. Throws
// std::runtime_error naming the filter and listing the devices when nothing matches.
std::unique_ptr<Backend> make_opencl_backend(const std::string& device_filter);

// `stagebench tune` (models/ops/opencl/clblast_tuning.h): CLBlast's GEMM tuners on one device.
struct LibraryTuneOptions {
  std::string device_filter;  // as make_opencl_backend's
  int64_t size = 1024;     // the edge of the square GEMM Xgemm is tuned and timed at (large enough
                           // that CLBlast routes it to Xgemm, not XgemmDirect)
  double fraction = 0.05;  // of each tuner's search space, sampled at random

  // Throws std::invalid_argument naming the first bad option.
  void validate() const {
    if (!(fraction > 0 && fraction <= 1))
      throw std::invalid_argument("--fraction must be in (0, 1]");
    if (size < 512 || size > 16384) throw std::invalid_argument("--size must be in [512, 16384]");
  }
};
struct LibraryTuneReport {
  std::string device, path;  // the device key and the cache file
  nlohmann::json
      measured;  // per kernel: GFLOP/s of each judging GEMM before and after, kept or why not
  double seconds = 0;
  bool saved = false;  // whether any kernel's parameters were kept (and cached)
};
// Tunes, keeps each kernel's parameters only if its judging GEMMs (tuning_gemms) got faster
// together and none slower, and caches what was kept, which every later OpenCL backend on this
// device applies. Throws std::invalid_argument
// for bad options or a device that cannot be had.
LibraryTuneReport tune_opencl_library(const LibraryTuneOptions& options);

}  // namespace sb
