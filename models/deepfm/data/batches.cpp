#include "models/deepfm/data/batches.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "models/deepfm/data/rng.h"

namespace sb::deepfm {

Batch::Batch(int64_t batch_size)
    : fields(static_cast<size_t>(batch_size * kFields)),
      outcome(static_cast<size_t>(batch_size * kOutcomes)),
      direction(static_cast<size_t>(batch_size)),
      type(static_cast<size_t>(batch_size)) {}

BatchBuffers Batch::buffers() {
  return {fields, outcome, direction, type};
}

BatchView Batch::view() const {
  const auto n = static_cast<size_t>(size);
  return {step,
          epoch,
          size,
          std::span(fields).first(n * kFields),
          std::span(outcome).first(n * kOutcomes),
          std::span(direction).first(n),
          std::span(type).first(n)};
}

void check_buffers(const BatchBuffers& out, int64_t batch_size) {
  const auto n = static_cast<size_t>(batch_size);
  const auto check = [&](size_t have, size_t need, const char* what) {
    if (have < need)
      throw std::invalid_argument(std::string("deepfm batch buffers: ") + what + " holds " +
                                  std::to_string(have) + " values, a batch of " +
                                  std::to_string(batch_size) + " needs " + std::to_string(need));
  };
  check(out.fields.size(), n * kFields, "fields");
  check(out.outcome.size(), n * kOutcomes, "outcome");
  check(out.direction.size(), n, "direction");
  check(out.type.size(), n, "type");
}

EpochOrder::EpochOrder(int64_t rows, uint64_t seed, bool shuffle)
    : seed_(seed), shuffle_(shuffle), order_(static_cast<size_t>(rows)) {}

std::span<const int64_t> EpochOrder::rows_of(int64_t epoch) {
  if (epoch != epoch_) {
    std::iota(order_.begin(), order_.end(), int64_t{0});
    if (shuffle_) {
      Rng rng(mix_seed(seed_, static_cast<uint64_t>(epoch)));
      shuffle(std::span<int64_t>(order_), rng);
    }
    epoch_ = epoch;
  }
  return order_;
}

BatchView gather(const Encoded& data, std::span<const int64_t> rows, const BatchBuffers& out) {
  const auto n = static_cast<int64_t>(rows.size());
  check_buffers(out, n);
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto r = static_cast<size_t>(rows[i]);
    std::copy_n(data.fields.begin() + static_cast<ptrdiff_t>(r * kFields), kFields,
                out.fields.begin() + static_cast<ptrdiff_t>(i * kFields));
    std::copy_n(data.outcome.begin() + static_cast<ptrdiff_t>(r * kOutcomes), kOutcomes,
                out.outcome.begin() + static_cast<ptrdiff_t>(i * kOutcomes));
    out.direction[i] = data.direction[r];
    out.type[i] = data.type[r];
  }
  const auto m = rows.size();
  return {0,
          0,
          n,
          out.fields.first(m * kFields),
          out.outcome.first(m * kOutcomes),
          out.direction.first(m),
          out.type.first(m)};
}

std::span<const int64_t> rows_of_step(EpochOrder& order, int64_t step, int64_t batches_per_epoch,
                                      int64_t batch_size) {
  if (step < 0)
    throw std::invalid_argument("deepfm batches: negative step " + std::to_string(step));
  const auto rows = order.rows_of(step / batches_per_epoch);
  return rows.subspan(static_cast<size_t>((step % batches_per_epoch) * batch_size),
                      static_cast<size_t>(batch_size));
}

BatchSource::BatchSource(const Encoded& data, BatchOptions options)
    : data_(data),
      options_(options),
      per_epoch_(options.batch_size > 0 ? data.rows / options.batch_size : 0),
      order_(data.rows, options.seed, options.shuffle) {
  if (options.batch_size < 1)
    throw std::invalid_argument("deepfm batches: batch size " + std::to_string(options.batch_size) +
                                " < 1");
  if (per_epoch_ < 1)
    throw std::invalid_argument("deepfm batches: " + std::to_string(data.rows) +
                                " rows are fewer than one batch of " +
                                std::to_string(options.batch_size));
}

BatchView BatchSource::fill(int64_t step, const BatchBuffers& out) {
  BatchView v = gather(data_, rows_of_step(order_, step, per_epoch_, options_.batch_size), out);
  v.step = step;
  v.epoch = step / per_epoch_;
  return v;
}

Batch BatchSource::batch(int64_t step) {
  Batch b(options_.batch_size);
  const BatchView v = fill(step, b.buffers());
  b.step = v.step;
  b.epoch = v.epoch;
  b.size = v.size;
  return b;
}

}  // namespace sb::deepfm
