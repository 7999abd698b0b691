#pragma once
// The OpenCL backend's launch lists (models/ops/launch_list.h). NVIDIA's OpenCL lists no
// cl_khr_command_buffer, so the list is kept by hand: at each launch while recording, the kernel
// object, its arguments just set, is copied with clCloneKernel (OpenCL 2.1; the copy keeps the
// argument values, so the backend's one cached kernel object per name can be set again for the
// next launch), with its sizes. Replay queues those copies with no argument set and flushes once.
//
// Buffers: the recorder keeps a reference to every tensor passed as a kernel argument while
// recording, so no buffer a launch reads or writes is freed to the pool, handed to another
// tensor, or released while the list lives (the step's temporaries included: they stay the
// list's). A recording therefore holds every temporary the step made at once, where the eager
// step reuses pooled buffers between them.
#include <CL/opencl.hpp>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "models/ops/launch_list.h"
#include "models/ops/tensor.h"

namespace sb {

class EventLog;

// One kept launch: its own kernel object (a clone), the name the kernel log knows it by, and
// its sizes as clEnqueueNDRangeKernel takes them.
struct RecordedLaunch {
  std::string name;
  cl::Kernel kernel;
  cl_uint dims = 1;
  std::array<size_t, 3> global{}, local{};
  bool has_local = false;
};

// "" when clCloneKernel can be called on this device (its OpenCL version is 2.1 or later: the
// ICD loader has no entry to call on an older driver), else why not.
std::string clone_kernel_unsupported(const cl::Device& device);

class LaunchRecorder {
 public:
  bool active() const { return active_; }
  // Starts a recording; throws std::logic_error when one is already under way.
  // library_spans_own: the backend's library spans hold only its own kernels (every fp32
  // product on gemm_general, STAGEBENCH_F32_GEMM=portable), which the list keeps as any other.
  void begin(bool library_spans_own);
  bool library_spans_own() const { return library_spans_own_; }
  // Called by EventLog::launch after it queued `kernel`: keeps a clone with its arguments.
  void launched(const std::string& name, const cl::Kernel& kernel, const cl::NDRange& global,
                const cl::NDRange& local);
  // A tensor passed as a kernel argument: kept until the list goes.
  void keep(const Tensor& t) { kept_.push_back(t); }
  // The step did something a list cannot hold: the first reason is the recording's verdict.
  void refuse(const std::string& why);
  // Ends the recording: the list, or RecordingRefused with the first reason.
  std::unique_ptr<LaunchList> end(EventLog& events, cl::CommandQueue& queue);

 private:
  bool active_ = false;
  bool library_spans_own_ = false;
  std::string refused_;
  std::vector<RecordedLaunch> launches_;
  std::vector<Tensor> kept_;
};

}  // namespace sb
