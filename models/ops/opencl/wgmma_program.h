#pragma once
// Builds an OpenCL program whose kernels use Hopper's wgmma (issue 27; docs/wgmma.md): the
// source, whose wgmma instructions are PTX comments (wgmma_ptx.h's helpers), is compiled by
// NVIDIA's OpenCL compiler; its PTX is read back (CL_PROGRAM_BINARIES), patched (target sm_90a,
// the comments made instructions) and built again through clCreateProgramWithBinary, which
// runs ptxas for sm_90a. The compiler itself targets sm_90 and rejects wgmma in inline asm.
// The op layer (gemm_wgmma.cpp) and the probe (probes/wgmma) both build through this.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <string>

#include "models/ops/opencl/wgmma_ptx.h"

namespace sb::wgmma {

struct ProgramBuild {
  cl_program program = nullptr;  // the patched program, built; the caller releases it
  std::string source_log;        // the first (source) build's log
  std::string binary_log;        // the patched binary's build log (ptxas -v with -cl-nv-verbose)
  std::string original_ptx;      // as the compiler wrote it (kept only when asked)
  Patched patched;               // the patched text and what the patch replaced
  std::string error;             // empty on success: which step failed, and its log
};

// `options` go to the source build; the binary build gets `binary_options` (e.g.
// "-cl-nv-verbose", retried without it if refused). maxnreg > 0 caps every entry's registers.
// A program without any SBW_MMA comment is an error: the compiler dropped the helpers.
ProgramBuild build_program(cl_context context, cl_device_id device, const std::string& source,
                           const std::string& options, const std::string& binary_options = "",
                           int maxnreg = 0, bool keep_original_ptx = false);

// The device's CUDA compute capability (cl_nv_device_attribute_query), {0, 0} when it does not
// say (any other vendor).
struct ComputeCapability {
  int major = 0, minor = 0;
};
ComputeCapability compute_capability(cl_device_id device);

}  // namespace sb::wgmma
