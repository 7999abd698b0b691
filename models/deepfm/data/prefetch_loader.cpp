#include "models/deepfm/data/prefetch_loader.h"

#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace sb::deepfm {

struct PrefetchLoader::State {
  std::mutex mutex;
  std::condition_variable work_cv, ready_cv;
  std::vector<Batch> owned;  // the slots' memory when no allocator is given
  std::vector<BatchBuffers> slots;
  std::vector<int> free_slots;
  std::map<int64_t, std::pair<int, BatchView>> ready;  // step -> slot and its view
  std::map<int64_t, std::exception_ptr> errors;        // step -> what its worker threw
  int64_t next_claim = 0, next_take = 0;
  int held = 0;
  bool stop = false, failed = false;
  std::vector<std::thread> threads;

  void release(int slot) {
    {
      std::lock_guard lock(mutex);
      free_slots.push_back(slot);
      --held;
    }
    work_cv.notify_one();
  }
};

PrefetchLoader::Ready::Ready(Ready&& o) noexcept
    : state_(std::move(o.state_)), slot_(o.slot_), view_(o.view_) {
  o.slot_ = -1;
}
PrefetchLoader::Ready& PrefetchLoader::Ready::operator=(Ready&& o) noexcept {
  if (this != &o) {
    reset();
    state_ = std::move(o.state_);
    slot_ = o.slot_;
    view_ = o.view_;
    o.slot_ = -1;
  }
  return *this;
}
PrefetchLoader::Ready::~Ready() {
  reset();
}
void PrefetchLoader::Ready::reset() {
  if (state_) state_->release(slot_);
  state_.reset();
  slot_ = -1;
  view_ = {};
}

PrefetchLoader::PrefetchLoader(const Encoded& data, BatchOptions batches, LoaderOptions options,
                               BufferAllocator allocator)
    : data_(data), batches_(batches), options_(std::move(options)) {
  // BatchSource validates the batch options the same way; build one for its checks alone.
  per_epoch_ = BatchSource(data, batches).batches_per_epoch();
  if (options_.workers < 1)
    throw std::invalid_argument("deepfm loader: " + std::to_string(options_.workers) +
                                " workers, need at least 1");
  if (options_.depth < 1 || options_.depth > 16)
    throw std::invalid_argument("deepfm loader: depth " + std::to_string(options_.depth) +
                                " outside 1..16");
  if (options_.first_step < 0) throw std::invalid_argument("deepfm loader: negative first step");
  state_ = std::make_shared<State>();
  const int n = options_.depth + 1;
  for (int s = 0; s < n; ++s) {
    if (allocator) {
      state_->slots.push_back(allocator(s, batches_.batch_size));
    } else {
      state_->owned.emplace_back(batches_.batch_size);
      state_->slots.push_back(state_->owned.back().buffers());
    }
    check_buffers(state_->slots.back(), batches_.batch_size);
    state_->free_slots.push_back(n - 1 - s);  // slot 0 is used first
  }
  state_->next_claim = state_->next_take = options_.first_step;
  state_->threads.reserve(static_cast<size_t>(options_.workers));
  try {
    for (int w = 0; w < options_.workers; ++w) state_->threads.emplace_back([this] { work(); });
  } catch (...) {
    shutdown();
    throw;
  }
}

PrefetchLoader::~PrefetchLoader() {
  shutdown();
}

void PrefetchLoader::shutdown() noexcept {
  if (!state_) return;
  {
    std::lock_guard lock(state_->mutex);
    state_->stop = true;
  }
  state_->work_cv.notify_all();
  for (auto& t : state_->threads)
    if (t.joinable()) t.join();
  state_->threads.clear();
}

int PrefetchLoader::slots() const {
  return static_cast<int>(state_->slots.size());
}

int64_t PrefetchLoader::next_step() const {
  std::lock_guard lock(state_->mutex);
  return state_->next_take;
}

bool PrefetchLoader::done() const {
  std::lock_guard lock(state_->mutex);
  return options_.end_step >= 0 && state_->next_take >= options_.end_step;
}

void PrefetchLoader::work() {
  State& s = *state_;
  EpochOrder order(data_.rows, batches_.seed, batches_.shuffle);
  const int64_t end = options_.end_step;
  while (true) {
    int slot;
    int64_t step;
    {
      std::unique_lock lock(s.mutex);
      const auto finished = [&] { return s.stop || s.failed || (end >= 0 && s.next_claim >= end); };
      s.work_cv.wait(lock, [&] { return finished() || !s.free_slots.empty(); });
      if (finished()) return;
      // Slot before step: a claimed step always has memory, so the consumer's next step is
      // always on its way and waiting for it cannot deadlock.
      slot = s.free_slots.back();
      s.free_slots.pop_back();
      step = s.next_claim++;
    }
    try {
      BatchView v = gather(data_, rows_of_step(order, step, per_epoch_, batches_.batch_size),
                           s.slots[static_cast<size_t>(slot)]);
      v.step = step;
      v.epoch = step / per_epoch_;
      if (options_.after_fill) options_.after_fill(v, slot);
      {
        std::lock_guard lock(s.mutex);
        s.ready.emplace(step, std::make_pair(slot, v));
      }
      s.ready_cv.notify_all();
    } catch (...) {
      {
        std::lock_guard lock(s.mutex);
        s.errors.emplace(step, std::current_exception());
        s.free_slots.push_back(slot);
        s.failed = true;  // no new claims; steps already claimed still complete
      }
      s.ready_cv.notify_all();
      s.work_cv.notify_all();
    }
  }
}

PrefetchLoader::Ready PrefetchLoader::next() {
  State& s = *state_;
  std::unique_lock lock(s.mutex);
  const int64_t step = s.next_take;
  if (options_.end_step >= 0 && step >= options_.end_step)
    throw std::out_of_range("deepfm loader: step " + std::to_string(step) + " is past the end (" +
                            std::to_string(options_.end_step) + ")");
  if (!s.errors.empty() && s.errors.begin()->first <= step)
    std::rethrow_exception(s.errors.begin()->second);
  if (s.held >= static_cast<int>(s.slots.size()))
    throw std::logic_error("deepfm loader: the consumer holds all " +
                           std::to_string(s.slots.size()) +
                           " slots; release a batch before asking for the next");
  s.ready_cv.wait(lock, [&] { return s.ready.count(step) || s.errors.count(step); });
  if (const auto e = s.errors.find(step); e != s.errors.end()) std::rethrow_exception(e->second);
  const auto it = s.ready.find(step);
  Ready r;
  r.state_ = state_;
  r.slot_ = it->second.first;
  r.view_ = it->second.second;
  s.ready.erase(it);
  ++s.held;
  ++s.next_take;
  return r;
}

}  // namespace sb::deepfm
