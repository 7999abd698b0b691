#include "models/ops/opencl/cl_launch_list.h"

#include <cstdio>
#include <stdexcept>
#include <utility>

#include "models/ops/opencl/event_log.h"

// OpenCL 2.1's clCloneKernel: the op layer builds against the 1.2 headers, which do not declare
// it; the ICD loader exports it (clone_kernel_unsupported checks the device's version first).
extern "C" CL_API_ENTRY cl_kernel CL_API_CALL clCloneKernel(cl_kernel source_kernel,
                                                            cl_int* errcode_ret);

namespace sb {
namespace {

class ClLaunchList final : public LaunchList {
 public:
  ClLaunchList(EventLog& events, cl::CommandQueue& queue, std::vector<RecordedLaunch> launches,
               std::vector<Tensor> kept)
      : events_(events), queue_(queue), launches_(std::move(launches)), kept_(std::move(kept)) {}
  // Nothing queued may outlive the tensors it reads: wait for the last replay before letting go.
  ~ClLaunchList() override {
    try {
      queue_.finish();
    } catch (...) {
    }
  }

  void replay() override { events_.replay(launches_); }
  size_t launches() const override { return launches_.size(); }
  std::string how() const override {
    return "launch list: clCloneKernel copies of " + std::to_string(launches_.size()) +
           " launches, queued again without setting an argument, one clFlush";
  }

 private:
  EventLog& events_;
  cl::CommandQueue& queue_;
  std::vector<RecordedLaunch> launches_;
  std::vector<Tensor> kept_;  // every buffer a launch uses, alive while the list is
};

// "OpenCL 3.0 CUDA ..." -> 300; 0 when the text is not of that form.
int opencl_version(const std::string& text) {
  int major = 0, minor = 0;
  if (std::sscanf(text.c_str(), "OpenCL %d.%d", &major, &minor) != 2) return 0;
  return major * 100 + minor * 10;
}

}  // namespace

std::string clone_kernel_unsupported(const cl::Device& device) {
  const std::string version = device.getInfo<CL_DEVICE_VERSION>();
  if (opencl_version(version) >= 210) return {};
  return "the device reports \"" + version +
         "\": clCloneKernel, which the launch list copies each launch with, needs OpenCL 2.1";
}

void LaunchRecorder::begin(bool library_spans_own) {
  if (active_) throw std::logic_error("begin_launch_recording: a recording is already under way");
  active_ = true;
  library_spans_own_ = library_spans_own;
  refused_.clear();
  launches_.clear();
  kept_.clear();
}

void LaunchRecorder::launched(const std::string& name, const cl::Kernel& kernel,
                              const cl::NDRange& global, const cl::NDRange& local) {
  if (!refused_.empty()) return;  // the verdict is in: keep nothing more
  cl_int err = CL_SUCCESS;
  cl_kernel copy = clCloneKernel(kernel(), &err);
  if (err != CL_SUCCESS || copy == nullptr) {
    refuse("clCloneKernel failed on " + name + " (error " + std::to_string(err) + ")");
    return;
  }
  RecordedLaunch l;
  l.name = name;
  l.kernel = cl::Kernel(copy);  // takes the reference clCloneKernel returned
  l.dims = static_cast<cl_uint>(global.dimensions());
  for (cl_uint d = 0; d < l.dims; ++d) l.global[d] = global.get()[d];
  l.has_local = local.dimensions() > 0;
  for (cl_uint d = 0; l.has_local && d < l.dims; ++d) l.local[d] = local.get()[d];
  launches_.push_back(std::move(l));
}

void LaunchRecorder::refuse(const std::string& why) {
  if (active_ && refused_.empty()) refused_ = why;
}

std::unique_ptr<LaunchList> LaunchRecorder::end(EventLog& events, cl::CommandQueue& queue) {
  if (!active_) throw std::logic_error("end_launch_recording: no recording is under way");
  active_ = false;
  std::vector<RecordedLaunch> launches = std::move(launches_);
  std::vector<Tensor> kept = std::move(kept_);
  launches_.clear();
  kept_.clear();
  if (!refused_.empty()) throw RecordingRefused("the step cannot be recorded: " + refused_);
  if (launches.empty()) throw RecordingRefused("the step launched no kernels: nothing to record");
  return std::make_unique<ClLaunchList>(events, queue, std::move(launches), std::move(kept));
}

}  // namespace sb
