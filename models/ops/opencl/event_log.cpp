#include "models/ops/opencl/event_log.h"

#include <algorithm>
#include <stdexcept>

namespace sb {
namespace {

// A long run of ops without a synchronize() would otherwise keep every event alive.
constexpr size_t kMaxPending = 8192;

uint64_t span_ns(cl_ulong from, cl_ulong to) {
  return to > from ? to - from : 0;
}

}  // namespace

void EventLog::launch(const std::string& name, const cl::Kernel& kernel, const cl::NDRange& global,
                      const cl::NDRange& local) {
  if (!recording_ || !log_.recording()) {
    queue_.enqueueNDRangeKernel(kernel, cl::NullRange, global, local);
  } else {
    cl::Event event;
    queue_.enqueueNDRangeKernel(kernel, cl::NullRange, global, local, nullptr, &event);
    remember({name, cl::Event(), std::move(event)});
  }
  if (recorder_ && recorder_->active()) recorder_->launched(name, kernel, global, local);
}

// replay35: the C call itself, sizes prepared at recording: the least host work a launch takes.
void EventLog::replay(const std::vector<RecordedLaunch>& launches) {
  const bool events = recording_ && log_.recording();
  cl_command_queue queue = queue_();
  for (const RecordedLaunch& l : launches) {
    cl_event event = nullptr;
    const cl_int err = clEnqueueNDRangeKernel(queue, l.kernel(), l.dims, nullptr, l.global.data(),
                                              l.has_local ? l.local.data() : nullptr, 0, nullptr,
                                              events ? &event : nullptr);
    if (err != CL_SUCCESS) throw cl::Error(err, "clEnqueueNDRangeKernel (launch list replay)");
    if (events) remember({l.name, cl::Event(), cl::Event(event)});
  }
  if (const cl_int err = clFlush(queue); err != CL_SUCCESS)
    throw cl::Error(err, "clFlush (launch list replay)");
}

void EventLog::begin_span() {
  if (span_open_) throw std::logic_error("EventLog: nested spans are not supported");
  span_recorded_ = recording_ && log_.recording();
  if (span_recorded_) queue_.enqueueMarkerWithWaitList(nullptr, &span_begin_);
  span_open_ = true;
}

void EventLog::end_span(const std::string& name) {
  if (!span_open_) throw std::logic_error("EventLog: end_span without begin_span");
  span_open_ = false;
  if (recorder_ && recorder_->active() && !recorder_->library_spans_own())
    recorder_->refuse(name +
                      " is a library call, which enqueues kernels of its own that a "
                      "launch list cannot hold");
  if (!span_recorded_) return;
  cl::Event end;
  queue_.enqueueMarkerWithWaitList(nullptr, &end);
  remember({name, std::move(span_begin_), std::move(end)});
}

void EventLog::remember(Pending p) {
  pending_.push_back(std::move(p));
  if (pending_.size() >= kMaxPending) flush();
}

void EventLog::flush() {
  const bool timeline = log_.capturing();
  for (auto& p : pending_) {
    p.end.wait();
    const cl_ulong end = p.end.getProfilingInfo<CL_PROFILING_COMMAND_END>();
    const cl::Event& first = p.begin() ? p.begin : p.end;
    const cl_ulong start = p.begin() ? p.begin.getProfilingInfo<CL_PROFILING_COMMAND_END>()
                                     : p.end.getProfilingInfo<CL_PROFILING_COMMAND_START>();
    if (timeline) {
      log_.kernel_event(p.name, first.getProfilingInfo<CL_PROFILING_COMMAND_QUEUED>(), start,
                        std::max(start, end));
    } else {
      log_.kernel(p.name, span_ns(start, end));
    }
  }
  pending_.clear();
}

}  // namespace sb
