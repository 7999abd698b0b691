// BatchSource and PrefetchLoader: deterministic batches, the same sequence from both, caller
// memory, shutdown and errors.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <set>
#include <thread>

#include "models/deepfm/data/prefetch_loader.h"
#include "models/deepfm/data/preprocess.h"
#include "models/deepfm/data/synthetic.h"

namespace sb::deepfm {
namespace {

const Dataset& tiny() {
  static const Dataset d =
      preprocess(generate_table(table_spec("tiny", 8, 600)), Cleaning::literal, 1);
  return d;
}

std::vector<int32_t> to_vec(std::span<const int32_t> s) {
  return {s.begin(), s.end()};
}
std::vector<float> to_vec(std::span<const float> s) {
  return {s.begin(), s.end()};
}

void expect_same(const BatchView& a, const BatchView& b) {
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.epoch, b.epoch);
  EXPECT_EQ(a.size, b.size);
  EXPECT_EQ(to_vec(a.fields), to_vec(b.fields)) << "step " << a.step;
  EXPECT_EQ(to_vec(a.outcome), to_vec(b.outcome)) << "step " << a.step;
  EXPECT_EQ(to_vec(a.direction), to_vec(b.direction)) << "step " << a.step;
  EXPECT_EQ(to_vec(a.type), to_vec(b.type)) << "step " << a.step;
}

TEST(Batches, DeterministicPerEpochShuffleDropLast) {
  const Encoded& train = tiny().train;  // 480 rows
  BatchSource a(train, {64, 5, true}), b(train, {64, 5, true});
  EXPECT_EQ(a.batches_per_epoch(), 7);  // 480 / 64, the last 32 rows dropped
  // Out of order on b: each batch depends on (seed, epoch, step) alone.
  for (int64_t step : {9, 0, 15, 3, 7}) expect_same(a.batch(step).view(), b.batch(step).view());

  // Within an epoch no row repeats; epochs differ in order.
  std::multiset<std::vector<int32_t>> seen;
  std::vector<int32_t> epoch0, epoch1;
  for (int64_t s = 0; s < 7; ++s) {
    const Batch x = a.batch(s);
    EXPECT_EQ(x.epoch, 0);
    EXPECT_EQ(x.size, 64);
    epoch0.insert(epoch0.end(), x.type.begin(), x.type.end());
  }
  for (int64_t s = 7; s < 14; ++s) {
    const Batch x = a.batch(s);
    EXPECT_EQ(x.epoch, 1);
    epoch1.insert(epoch1.end(), x.type.begin(), x.type.end());
  }
  EXPECT_NE(epoch0, epoch1);

  // Without shuffle, step 0 is the first rows in table order.
  BatchSource plain(train, {4, 5, false});
  const Batch first = plain.batch(0);
  EXPECT_EQ(first.fields, std::vector<int32_t>(train.fields.begin(), train.fields.begin() + 16));

  EXPECT_THROW(BatchSource(train, {0, 1, true}), std::invalid_argument);
  EXPECT_THROW(BatchSource(train, {1000, 1, true}), std::invalid_argument);
}

TEST(Batches, FillsCallerBuffers) {
  BatchSource src(tiny().train, {32, 2, true});
  std::vector<int32_t> fields(32 * kFields), dir(32), type(32);
  std::vector<float> outcome(32 * kOutcomes);
  const BatchView v = src.fill(3, {fields, outcome, dir, type});
  EXPECT_EQ(v.fields.data(), fields.data());
  expect_same(v, src.batch(3).view());
  std::vector<int32_t> small(3);
  EXPECT_THROW(src.fill(0, {small, outcome, dir, type}), std::invalid_argument);
}

TEST(Loader, SameSequenceAsBatchSourceWithThreeWorkers) {
  const BatchOptions opts{48, 77, true};
  BatchSource src(tiny().train, opts);
  LoaderOptions lo;
  lo.workers = 3;
  lo.depth = 3;
  lo.end_step = 40;  // several epochs of 10
  // Random delays on the workers, so that they finish out of order.
  lo.after_fill = [](const BatchView& v, int) {
    thread_local std::minstd_rand rng(
        static_cast<unsigned>(std::hash<std::thread::id>{}(std::this_thread::get_id())));
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 400));
  };
  PrefetchLoader loader(tiny().train, opts, lo);
  int64_t n = 0;
  while (!loader.done()) {
    const auto r = loader.next();
    expect_same(*r, src.batch(n).view());
    ++n;
  }
  EXPECT_EQ(n, 40);
  EXPECT_THROW(loader.next(), std::out_of_range);
}

TEST(Loader, StartsAtFirstStepAndUsesCallerMemory) {
  const BatchOptions opts{16, 3, true};
  LoaderOptions lo;
  lo.workers = 2;
  lo.depth = 2;
  lo.first_step = 25;
  std::vector<Batch> staging;
  staging.reserve(3);
  std::set<int> slots_asked;
  PrefetchLoader loader(tiny().train, opts, lo, [&](int slot, int64_t batch_size) {
    slots_asked.insert(slot);
    return staging.emplace_back(batch_size).buffers();
  });
  EXPECT_EQ(loader.slots(), 3);
  EXPECT_EQ(slots_asked, (std::set<int>{0, 1, 2}));
  BatchSource src(tiny().train, opts);
  for (int64_t step = 25; step < 35; ++step) {
    const auto r = loader.next();
    ASSERT_GE(r.slot(), 0);
    EXPECT_EQ(r->fields.data(), staging[static_cast<size_t>(r.slot())].fields.data());
    expect_same(*r, src.batch(step).view());
  }
}

TEST(Loader, EarlyDestructionDoesNotHang) {
  const auto start = std::chrono::steady_clock::now();
  for (int round = 0; round < 20; ++round) {
    LoaderOptions lo;
    lo.workers = 3;
    lo.depth = 2;
    PrefetchLoader loader(tiny().train, {16, 1, true}, lo);
    if (round % 2) {
      auto held = loader.next();  // destroyed before the loader, with workers blocked on slots
      auto second = loader.next();
    }
  }
  // A handle may even outlive its loader.
  PrefetchLoader::Ready kept;
  {
    PrefetchLoader loader(tiny().train, {16, 1, true}, {});
    kept = loader.next();
  }
  EXPECT_EQ(kept->size, 16);
  kept.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(Loader, HoldingEverySlotIsRefusedNotADeadlock) {
  LoaderOptions lo;
  lo.depth = 1;
  PrefetchLoader loader(tiny().train, {16, 1, true}, lo);
  auto a = loader.next(), b = loader.next();
  EXPECT_THROW(loader.next(), std::logic_error);
  a.reset();
  EXPECT_EQ(loader.next()->step, 2);
}

TEST(Loader, WorkerExceptionReachesTheConsumerAtItsStep) {
  LoaderOptions lo;
  lo.workers = 3;
  lo.after_fill = [](const BatchView& v, int) {
    if (v.step == 5) throw std::runtime_error("staging upload failed at 5");
  };
  PrefetchLoader loader(tiny().train, {16, 1, true}, lo);
  for (int64_t s = 0; s < 5; ++s) EXPECT_EQ(loader.next()->step, s);
  for (int again = 0; again < 2; ++again) {
    try {
      loader.next();
      FAIL() << "expected the worker's exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "staging upload failed at 5");
    }
  }
}

TEST(Loader, RefusesBadOptions) {
  const Encoded& train = tiny().train;
  LoaderOptions lo;
  lo.workers = 0;
  EXPECT_THROW(PrefetchLoader(train, {16, 1, true}, lo), std::invalid_argument);
  lo.workers = 1;
  lo.depth = 0;
  EXPECT_THROW(PrefetchLoader(train, {16, 1, true}, lo), std::invalid_argument);
  lo.depth = 2;
  std::vector<int32_t> tiny_buffer(1);
  std::vector<float> f(1);
  EXPECT_THROW(PrefetchLoader(train, {16, 1, true}, lo,
                              [&](int, int64_t) {
                                return BatchBuffers{tiny_buffer, f, tiny_buffer, tiny_buffer};
                              }),
               std::invalid_argument);
}

}  // namespace
}  // namespace sb::deepfm
