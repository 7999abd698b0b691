// The batch search on synthetic probes: memory as a function of the batch, throughput as
// another, failures above a batch. What must hold: the largest fitting batch is the true one,
// every batch reported as fitting was measured within the cap, no batch far over the cap is ever
// run, and the throughput-best is the measured maximum.
#include "harness/batch_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <vector>

namespace sb {
namespace {

struct FakeModel {
  std::function<double(int64_t)> memory = [](int64_t b) { return 100.0 + 10.0 * b; };
  std::function<double(int64_t)> throughput = [](int64_t b) { return static_cast<double>(b); };
  int64_t fails_above = 0;  // allocation fails beyond this batch; 0: never
  std::vector<int64_t> ran;

  BatchProbe operator()(int64_t batch) {
    ran.push_back(batch);
    BatchProbe p;
    if (fails_above > 0 && batch > fails_above) {
      p.outcome = "failed";
      p.reason = "allocation failed";
      return p;
    }
    p.peak_bytes = static_cast<uint64_t>(memory(batch));
    p.items_per_s = throughput(batch);
    p.median_ms = 1000.0 * static_cast<double>(batch) / throughput(batch);
    return p;
  }
};

BatchSearchResult search(FakeModel& m, BatchSearchOptions o) {
  return search_batch([&m](int64_t b) { return m(b); }, o);
}

TEST(BatchSearch, FindsTheLargestBatchUnderTheCapWithoutRunningFarOverIt) {
  FakeModel m;  // 100 + 10 b bytes: batch 40 takes exactly 500
  BatchSearchOptions o;
  o.memory_cap_bytes = 500;
  const BatchSearchResult r = search(m, o);
  EXPECT_EQ(r.largest_fitting, 40);
  EXPECT_EQ(r.first_not_fitting, 41);
  EXPECT_EQ(r.limit, "memory cap");
  for (int64_t b : m.ran) EXPECT_LE(m.memory(b), 500 * 1.05) << "ran batch " << b;
  for (const BatchProbe& p : r.curve) {
    if (p.outcome != "fits") continue;
    EXPECT_LE(*p.peak_bytes, 500u);
    EXPECT_NE(std::find(m.ran.begin(), m.ran.end(), p.batch), m.ran.end()) << p.batch;
  }
  // Batch 64 (740 bytes) was bounded by the line through 16 and 32, not run.
  EXPECT_EQ(std::count(m.ran.begin(), m.ran.end(), 64), 0);
  bool predicted = false;
  for (const BatchProbe& p : r.curve) predicted |= p.outcome == "predicted over cap";
  EXPECT_TRUE(predicted);
  for (size_t i = 1; i < r.curve.size(); ++i) EXPECT_LE(r.curve[i - 1].batch, r.curve[i].batch);
}

TEST(BatchSearch, BestThroughputIsTheMeasuredMaximum) {
  FakeModel m;
  m.throughput = [](int64_t b) { return b <= 16 ? 100.0 * b : 1600.0 - 5.0 * (b - 16); };
  BatchSearchOptions o;
  o.memory_cap_bytes = 1000;  // batch 90
  const BatchSearchResult r = search(m, o);
  EXPECT_EQ(r.best_throughput, 16);
  EXPECT_EQ(r.largest_fitting, 90);
}

TEST(BatchSearch, AFailedAllocationBoundsTheSearchWhenThereIsNoCap) {
  FakeModel m;
  m.fails_above = 24;
  const BatchSearchResult r = search(m, {});
  EXPECT_EQ(r.largest_fitting, 24);
  EXPECT_EQ(r.limit, "failed");
  EXPECT_EQ(*std::max_element(m.ran.begin(), m.ran.end()), 32);
  for (const BatchProbe& p : r.curve)
    if (p.batch > 24) {
      EXPECT_EQ(p.outcome, "failed");
    }
}

TEST(BatchSearch, StopsAtTheLargestBatchAndAtTheProbeBudget) {
  FakeModel m;
  BatchSearchOptions o;
  o.max_batch = 100;
  BatchSearchResult r = search(m, o);
  EXPECT_EQ(r.largest_fitting, 100);
  EXPECT_EQ(r.limit, "max batch");
  EXPECT_EQ(m.ran.back(), 100);

  FakeModel n;
  o.max_probes = 3;
  r = search(n, o);
  EXPECT_EQ(n.ran.size(), 3u);
  EXPECT_EQ(r.largest_fitting, 4);
  EXPECT_EQ(r.limit, "probe budget");
}

TEST(BatchSearch, MemoryThatDoesNotGrowIsNeverExtrapolated) {
  FakeModel m;
  m.memory = [](int64_t) { return 1000.0; };
  m.fails_above = 5;
  BatchSearchOptions o;
  o.memory_cap_bytes = 2000;
  const BatchSearchResult r = search(m, o);
  EXPECT_EQ(r.largest_fitting, 5);  // found by running, not by a line of slope 0
  EXPECT_EQ(r.limit, "failed");
}

TEST(BatchSearch, BatchOneOverTheCapFitsNothing) {
  FakeModel m;
  BatchSearchOptions o;
  o.memory_cap_bytes = 50;
  const BatchSearchResult r = search(m, o);
  EXPECT_EQ(r.largest_fitting, 0);
  EXPECT_EQ(r.best_throughput, 0);
  EXPECT_EQ(r.limit, "memory cap");
  EXPECT_EQ(m.ran, std::vector<int64_t>{1});
  const nlohmann::json j = batch_search_json(r, o, "eager", "host_tensor_peak_bytes", "test");
  EXPECT_TRUE(j["largest_fitting"].is_null());
  EXPECT_EQ(j["probes"], 1);
  EXPECT_EQ(j["curve"][0]["outcome"], "over cap");
}

TEST(BatchSearch, TheSectionNamesEveryFigure) {
  FakeModel m;
  BatchSearchOptions o;
  o.memory_cap_bytes = 500;
  const BatchSearchResult r = search(m, o);
  const nlohmann::json j = batch_search_json(r, o, "eager", "device_peak_bytes", "--memory-cap");
  for (const char* key :
       {"stage", "memory_basis", "memory_cap_bytes", "cap_source", "largest_fitting",
        "best_throughput", "first_not_fitting", "limit", "probes", "curve"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["largest_fitting"], 40);
  EXPECT_EQ(j["memory_cap_bytes"], 500);
  EXPECT_EQ(j["probes"], static_cast<int>(m.ran.size()));
}

TEST(BatchSearch, BadOptionsAreRefused) {
  FakeModel m;
  BatchSearchOptions o;
  o.max_batch = 0;
  EXPECT_THROW(search(m, o), std::invalid_argument);
  o = {};
  o.max_probes = 0;
  EXPECT_THROW(search(m, o), std::invalid_argument);
}

}  // namespace
}  // namespace sb
