#include <gtest/gtest.h>

#include "tests/collectors/reported.h"

#include "collectors/memory_collector.h"
#include "instrument/allocation_tracker.h"
#include "touch_memory.h"

namespace sb {
namespace {

uint64_t peak_of_one_sample(MemoryCollector& memory, size_t touch_bytes) {
  memory.begin_stage({});
  memory.start();
  if (touch_bytes) testing::touch_fresh_memory(touch_bytes);
  memory.stop();
  return memory.host_peak_bytes();
}

TEST(MemoryCollector, SeesTouchedAllocationInPeakRss) {
  MemoryCollector memory;
  constexpr uint64_t kBytes = 64ull << 20;
  // The kernel's RSS counters are per-CPU batched and may lag by some pages: touch 1 MiB more.
  constexpr uint64_t kTouched = kBytes + (1ull << 20);
  testing::touch_fresh_memory(kTouched);  // first use of the allocator, outside the windows
  const uint64_t idle = peak_of_one_sample(memory, 0);
  ASSERT_TRUE(memory.rss_reset()) << "clear_refs refused: VmHWM cannot be reset here";
  const uint64_t busy = peak_of_one_sample(memory, kTouched);
  EXPECT_GE(busy, idle + kBytes) << "idle " << idle << " busy " << busy;
}

TEST(MemoryCollector, AttributesTrackerPeaksToTheStage) {
  AllocationTracker tensors;
  tensors.allocated(1000);  // another stage's weights, resident throughout
  tensors.allocated(200);   // this stage's own resident bytes
  CollectorSources sources;
  sources.host_tensors = &tensors;
  sources.stage_resident_host_bytes = 200;
  MemoryCollector memory;
  memory.begin_stage(sources);
  memory.start();
  tensors.allocated(500);  // a transient buffer of this sample
  tensors.released(500);
  memory.stop();
  nlohmann::json stage = testing::reported(memory, 1);
  EXPECT_EQ(stage["memory"]["host_tensor_peak_bytes"], 700);  // 200 resident + 500 transient
  EXPECT_TRUE(stage["memory"]["device_peak_bytes"].is_null());
  EXPECT_GT(stage["memory"]["host_peak_bytes"].get<uint64_t>(), 0u);
  EXPECT_TRUE(stage["memory"]["rss_reset"].is_boolean());

  // A sample without transients reports the stage's resident bytes only, not the old peak.
  memory.begin_stage(sources);
  memory.start();
  memory.stop();
  nlohmann::json next = testing::reported(memory, 1);
  EXPECT_EQ(next["memory"]["host_tensor_peak_bytes"], 200);
}

}  // namespace
}  // namespace sb
