#pragma once
// Training batches from an encoded split. The batch of step k depends only on (seed, epoch, k):
// epoch = k / batches_per_epoch, the epoch's row order is a seeded shuffle of all rows (or the
// table order when shuffle is off), and batch k takes the next batch_size rows of that order; the
// last partial batch of an epoch is dropped. BatchSource assembles on the caller's thread;
// PrefetchLoader (prefetch_loader.h) gives the same sequence assembled ahead by workers.
#include <cstdint>
#include <span>
#include <vector>

#include "models/deepfm/data/encode.h"

namespace sb::deepfm {

struct BatchOptions {
  int64_t batch_size = 256;
  uint64_t seed = 0;
  bool shuffle = true;
};

// Where a batch is written: the Batch's own vectors, or memory the caller owns (pinned or
// host-mapped staging buffers). Each span must hold at least batch_size rows' worth.
struct BatchBuffers {
  std::span<int32_t> fields;     // batch_size x kFields
  std::span<float> outcome;      // batch_size x kOutcomes
  std::span<int32_t> direction;  // batch_size
  std::span<int32_t> type;       // batch_size
};

// A filled batch, over whichever memory it was written to; the spans are exactly size rows long.
struct BatchView {
  int64_t step = 0, epoch = 0, size = 0;
  std::span<const int32_t> fields;
  std::span<const float> outcome;
  std::span<const int32_t> direction, type;
};

// A batch that owns its memory.
struct Batch {
  int64_t step = 0, epoch = 0, size = 0;
  std::vector<int32_t> fields;
  std::vector<float> outcome;
  std::vector<int32_t> direction, type;

  explicit Batch(int64_t batch_size = 0);  // storage for batch_size rows
  BatchBuffers buffers();
  BatchView view() const;
};

// Throws std::invalid_argument when a span is shorter than batch_size rows need.
void check_buffers(const BatchBuffers& out, int64_t batch_size);

// One epoch's row order, cached, since shuffling all rows per batch would cost more than the
// batch. Not thread-safe: each thread keeps its own.
class EpochOrder {
 public:
  EpochOrder(int64_t rows, uint64_t seed, bool shuffle);
  std::span<const int64_t> rows_of(int64_t epoch);

 private:
  uint64_t seed_;
  bool shuffle_;
  int64_t epoch_ = -1;
  std::vector<int64_t> order_;
};

// Copies the given rows of data into out (which must hold rows.size() rows) and returns the view.
BatchView gather(const Encoded& data, std::span<const int64_t> rows, const BatchBuffers& out);

// Synchronous batches. Keeps a reference to data, which must outlive it. Not thread-safe.
class BatchSource {
 public:
  // Throws std::invalid_argument for batch_size < 1 or a split smaller than one batch.
  BatchSource(const Encoded& data, BatchOptions options);

  int64_t batches_per_epoch() const { return per_epoch_; }
  int64_t batch_size() const { return options_.batch_size; }
  const BatchOptions& options() const { return options_; }
  const Encoded& data() const { return data_; }

  // The step-th batch (step >= 0; epochs repeat without end), into its own memory...
  Batch batch(int64_t step);
  // ...or into the caller's.
  BatchView fill(int64_t step, const BatchBuffers& out);

 private:
  const Encoded& data_;
  BatchOptions options_;
  int64_t per_epoch_;
  EpochOrder order_;
};

// For the workers: the rows of step k, with the same rule as BatchSource.
std::span<const int64_t> rows_of_step(EpochOrder& order, int64_t step, int64_t batches_per_epoch,
                                      int64_t batch_size);

}  // namespace sb::deepfm
