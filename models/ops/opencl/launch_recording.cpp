// The OpenCL backend's side of the launch-list contract (models/ops/launch_list.h): the
// recorder (cl_launch_list.h) is fed by EventLog::launch and by set_arg; what a list cannot
// hold refuses the recording where the backend queues it (synchronize, download, the uploads
// and writes, autotuning, library spans).
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

void OpenCLBackend::begin_launch_recording() {
  if (!clone_unsupported_.empty()) throw RecordingRefused(clone_unsupported_);
  recorder_.begin(portable_gemm_);  // no CLBlast under STAGEBENCH_F32_GEMM=portable
}

std::unique_ptr<LaunchList> OpenCLBackend::end_launch_recording() {
  return recorder_.end(events_, runtime_->queue());
}

}  // namespace sb
