#pragma once
// A recorded launch list: the kernels one step of ops launched, kept with their arguments, sizes
// and buffers, queued again without running the ops' host code (what CUDA graphs give PyTorch;
// docs/architecture.md, *Recorded launch lists*). The contract is CoreOps'
// launch_recording_unsupported, begin_launch_recording and end_launch_recording; record_launches
// below pairs the last two around a step.
//
// A step is recordable when everything it queues is a kernel of the backend's own: a read back
// to the host, a copy of host memory to the device, a wait for the device (synchronize, an
// autotuning's timed candidates) or a library call that enqueues kernels of its own makes the
// recording fail, naming the first such command. The step still runs as it would have (the
// recording runs every op as usual), so a failed recording leaves no half-done step.
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>

namespace sb {

class LaunchList {
 public:
  virtual ~LaunchList() = default;
  // Queues every recorded launch again, in order, on the tensors the step used (their current
  // contents: write a new input into the same tensor first), and returns without waiting.
  virtual void replay() = 0;
  virtual size_t launches() const = 0;
  // How the list is kept here ("clCloneKernel: ..."), for the records.
  virtual std::string how() const = 0;
};

// end_launch_recording's error: why the step's commands cannot be held in a launch list.
class RecordingRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Records what step() queues into a launch list. Throws RecordingRefused (the step having run)
// when the backend cannot record or the step did something a list cannot hold.
template <class Ops, class Step>
std::unique_ptr<LaunchList> record_launches(Ops& ops, Step&& step) {
  ops.begin_launch_recording();
  try {
    step();
  } catch (...) {
    try {
      ops.end_launch_recording();  // ends the recording; its verdict no longer matters
    } catch (...) {
    }
    throw;
  }
  return ops.end_launch_recording();
}

}  // namespace sb
