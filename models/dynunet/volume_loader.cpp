#include "models/dynunet/volume_loader.h"

#include <stdexcept>

#include "models/dynunet/volumes.h"

namespace sb::dynunet {

VolumeLoader::VolumeLoader(uint64_t seed, int64_t batch, int64_t patch, std::vector<Slot> slots,
                           int workers)
    : seed_(seed), batch_(batch), patch_(patch), slots_(std::move(slots)) {
  if (slots_.size() < 2 || workers < 1)
    throw std::invalid_argument("dynunet loader: needs at least 2 slots and 1 worker");
  for (int i = 0; i < static_cast<int>(slots_.size()); ++i) free_.push_back(i);
  for (int w = 0; w < workers; ++w) threads_.emplace_back([this] { work(); });
}

VolumeLoader::~VolumeLoader() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void VolumeLoader::work() {
  for (;;) {
    int slot;
    int64_t index;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [&] { return stop_ || !free_.empty(); });
      if (stop_) return;
      slot = free_.back();
      free_.pop_back();
      index = to_fill_++;
    }
    try {
      const Slot& s = slots_[static_cast<size_t>(slot)];
      make_volumes(seed_, index * batch_, batch_, patch_, s.image, s.mask);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      ready_[index] = slot;
    }
    cv_.notify_all();
  }
}

int VolumeLoader::next() {
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [&] { return error_ || ready_.count(to_take_) > 0; });
  if (error_) std::rethrow_exception(error_);
  const int slot = ready_[to_take_];
  ready_.erase(to_take_++);
  return slot;
}

void VolumeLoader::release(int slot) {
  {
    std::lock_guard lock(mutex_);
    free_.push_back(slot);
  }
  cv_.notify_all();
}

}  // namespace sb::dynunet
