#pragma once
// The dataloader stage's persistent prefetch workers: threads that make the next batches'
// volumes (volumes.h) into staging slots while the device computes, handed out in step order.
// DeepFM's loader (models/deepfm/data) reads rows of a table; this one makes volumes, so the
// two share the idea, not the code.
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

namespace sb::dynunet {

class VolumeLoader {
 public:
  struct Slot {
    std::span<float> image, mask;  // batch x patch^3 floats each
  };
  // Workers start at once on batches 0, 1, ...; there must be more slots than the consumer
  // holds at a time (it holds one).
  VolumeLoader(uint64_t seed, int64_t batch, int64_t patch, std::vector<Slot> slots, int workers);
  ~VolumeLoader();
  VolumeLoader(const VolumeLoader&) = delete;
  VolumeLoader& operator=(const VolumeLoader&) = delete;

  // The slot holding the next batch, waiting for it if need be; rethrows a worker's error. The
  // slot is the caller's until release().
  int next();
  void release(int slot);
  const Slot& slot(int i) const { return slots_.at(static_cast<size_t>(i)); }

 private:
  void work();

  uint64_t seed_;
  int64_t batch_, patch_;
  std::vector<Slot> slots_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<int> free_;
  std::map<int64_t, int> ready_;  // batch index -> slot
  int64_t to_fill_ = 0, to_take_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

}  // namespace sb::dynunet
