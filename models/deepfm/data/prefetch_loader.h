#pragma once
// Persistent prefetch workers for the "dataloader" stage: N threads assemble the batches ahead,
// into a fixed set of staging slots, while the consumer (the device) computes. The sequence is
// BatchSource's, whatever the threads' timing: a worker claims the next step in order and the
// consumer takes steps in order, each batch depending only on (seed, epoch, step).
//
// Slots: depth + 1 staging buffers. At most depth batches are ready or being filled while the
// consumer holds one; holding more Ready handles at once leaves the workers fewer slots. Their
// memory is the loader's own, or the caller's through a BufferAllocator (pinned or host-mapped
// memory), called once per slot on the constructing thread.
#include <cstdint>
#include <functional>
#include <memory>

#include "models/deepfm/data/batches.h"

namespace sb::deepfm {

struct LoaderOptions {
  int workers = 3;
  int depth = 3;           // 1..16: batches that may be ready ahead of the consumer
  int64_t first_step = 0;  // the first step next() returns
  int64_t end_step = -1;   // one past the last step; -1: no end (epochs repeat)
  // Runs on the worker after a batch is filled (e.g. to convert or upload it); an exception it
  // throws is reported like one from the fill. `slot` is in [0, depth].
  std::function<void(const BatchView&, int slot)> after_fill;
};

// Memory for staging slot `slot` (0..depth), each span at least batch_size rows' worth; the
// memory must outlive the loader and every Ready handle.
using BufferAllocator = std::function<BatchBuffers(int slot, int64_t batch_size)>;

class PrefetchLoader {
  struct State;

 public:
  // A batch handed to the consumer. Its slot goes back to the workers when the handle is
  // destroyed (or reset()); the view stays valid until then. Safe to outlive the loader.
  class Ready {
   public:
    Ready() = default;
    Ready(Ready&&) noexcept;
    Ready& operator=(Ready&&) noexcept;
    ~Ready();
    const BatchView& operator*() const { return view_; }
    const BatchView* operator->() const { return &view_; }
    int slot() const { return slot_; }
    void reset();
    explicit operator bool() const { return state_ != nullptr; }

   private:
    friend class PrefetchLoader;
    std::shared_ptr<State> state_;
    int slot_ = -1;
    BatchView view_;
  };

  // Keeps a reference to data, which must outlive the loader. Throws std::invalid_argument for
  // bad options (as BatchSource, and workers < 1, depth outside 1..16, first_step < 0, an
  // allocator's span too small). Workers start at once.
  PrefetchLoader(const Encoded& data, BatchOptions batches, LoaderOptions options = {},
                 BufferAllocator allocator = {});
  // Stops the workers and joins them; safe at any point (batches never taken are dropped).
  ~PrefetchLoader();
  PrefetchLoader(const PrefetchLoader&) = delete;
  PrefetchLoader& operator=(const PrefetchLoader&) = delete;

  // The batch of step next_step(), waiting for it if need be. Rethrows the exception a worker met
  // on that step (and again on every later call: the loader is then spent). Throws
  // std::out_of_range past end_step, std::logic_error if the consumer holds every slot (waiting
  // would never end).
  Ready next();
  int64_t next_step() const;
  bool done() const;
  int64_t batches_per_epoch() const { return per_epoch_; }
  int64_t batch_size() const { return batches_.batch_size; }
  int slots() const;

 private:
  void work();
  void shutdown() noexcept;

  const Encoded& data_;
  BatchOptions batches_;
  LoaderOptions options_;
  int64_t per_epoch_ = 0;
  std::shared_ptr<State> state_;
};

}  // namespace sb::deepfm
