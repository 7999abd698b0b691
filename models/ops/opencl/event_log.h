#pragma once
// Collects the profiling events of queued device work and, once they are complete, reports
// each one's device time to a KernelLog.
//
// A kernel of our own gets its own event: END - START. A library call (CLBlast) may launch
// several kernels (pad, transpose, main) yet returns one event, so it is bracketed by two
// markers instead and timed as after.END - before.END: on an in-order queue the first marker
// completes when everything queued before the call has, the second when the call's last
// kernel has, so the span covers all of the call's kernels (plus any device idle time between
// them, e.g. host-side enqueue latency, which is part of what the call costs).
#include <CL/opencl.hpp>
#include <string>
#include <vector>

#include "instrument/kernel_log.h"
#include "models/ops/opencl/cl_launch_list.h"

namespace sb {

class EventLog {
 public:
  EventLog(cl::CommandQueue& queue, KernelLog& log) : queue_(queue), log_(log) {}

  // Enqueues `kernel` and remembers its event under `name`.
  void launch(const std::string& name, const cl::Kernel& kernel, const cl::NDRange& global,
              const cl::NDRange& local = cl::NullRange);

  // Brackets a library call: begin_span() before it, end_span(name) after it.
  void begin_span();
  void end_span(const std::string& name);

  // Waits for every remembered event and reports it to the KernelLog.
  void flush();

  // Off: commands are enqueued without events and nothing reaches the KernelLog (no device
  // time, no kernel counts), to measure what the events themselves cost the host
  // (STAGEBENCH_CL_EVENTS=off; docs/method.md, *Device time (OpenCL)*). The KernelLog's own
  // recording() (the runner's timed samples) turns them off too.
  void set_recording(bool on) { recording_ = on; }

  // Launch lists (cl_launch_list.h; replay35). While `recorder` is active, every launch is
  // kept there and a library span refuses the recording. replay() queues a kept list with no
  // argument set and one flush, with events (as launch) when they are on.
  void set_recorder(LaunchRecorder* recorder) { recorder_ = recorder; }
  void replay(const std::vector<RecordedLaunch>& launches);

 private:
  struct Pending {
    std::string name;
    cl::Event begin;  // set for spans only
    cl::Event end;
  };
  void remember(Pending p);

  cl::CommandQueue& queue_;
  KernelLog& log_;
  std::vector<Pending> pending_;
  cl::Event span_begin_;
  bool span_open_ = false;
  bool recording_ = true;
  bool span_recorded_ = false;          // whether the open span's begin marker was queued
  LaunchRecorder* recorder_ = nullptr;  // replay35
};

}  // namespace sb
