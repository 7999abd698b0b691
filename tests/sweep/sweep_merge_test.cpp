// merge_documents: order by the sweep's jobs or a deterministic sort, duplicates rejected,
// every input's context kept.
#include <gtest/gtest.h>

#include "harness/sweep_merge.h"
#include "harness/sweep_runner.h"
#include "schema/document.h"

namespace sb {
namespace {

using nlohmann::json;

std::vector<SweepJob> jobs() {
  return expand_sweep(json::parse(R"({"entries": [
      {"models": "m", "sizes": ["tiny", "small"], "backends": ["cpu", "opencl"]}]})"),
                      "s.json");
}

json journaled_run(const SweepJob& job) {
  auto run = json({{"model", job.model},
                   {"size", job.size},
                   {"backend", job.backend},
                   {"device", "d"},
                   {"mode", "inference"},
                   {"params", {{"batch", job.batch}}},
                   {"stages", json::array()}})
                 .get<RunRecord>();
  tag_run(run, job);
  return run;
}

json doc_of(const std::vector<SweepJob>& js, const std::string& host) {
  json runs = json::array();
  for (const auto& j : js) runs.push_back(journaled_run(j));
  return make_document({{"host", host}}, runs);
}

std::vector<std::string> keys_of(const json& doc) {
  std::vector<std::string> out;
  for (const auto& r : doc["runs"]) out.push_back(run_key(r));
  return out;
}

TEST(SweepMerge, ShardsMergeBackIntoTheSweepOrder) {
  const auto all = jobs();
  const auto s0 = shard_jobs(all, {0, 2});
  const auto s1 = shard_jobs(all, {1, 2});
  std::vector<std::string> order;
  for (const auto& j : all) order.push_back(job_key(j));
  std::vector<std::string> missing;
  // Inputs in either order give the sweep's order.
  const json merged = merge_documents({{"b.json", doc_of(s1, "h1")}, {"a.json", doc_of(s0, "h0")}},
                                      order, &missing);
  EXPECT_TRUE(validate_document(merged).empty());
  EXPECT_EQ(keys_of(merged), order);
  EXPECT_TRUE(missing.empty());
  EXPECT_EQ(merged["context"]["host"], "h1");
  ASSERT_EQ(merged["contexts"].size(), 2u);
  EXPECT_EQ(merged["contexts"][1]["host"], "h0");
  EXPECT_EQ(merged["merged_from"], (json{"b.json", "a.json"}));
  EXPECT_EQ(merged["runs"][0]["merged_from"], 1) << "run 0 came from a.json";
}

TEST(SweepMerge, WithoutAConfigTheOrderIsDeterministic) {
  const auto all = jobs();
  const json ab = merge_documents(
      {{"a", doc_of(shard_jobs(all, {0, 2}), "")}, {"b", doc_of(shard_jobs(all, {1, 2}), "")}}, {});
  const json ba = merge_documents(
      {{"b", doc_of(shard_jobs(all, {1, 2}), "")}, {"a", doc_of(shard_jobs(all, {0, 2}), "")}}, {});
  EXPECT_EQ(keys_of(ab), keys_of(ba));
  ASSERT_EQ(ab["runs"].size(), 4u);
  EXPECT_EQ(ab["runs"][0]["size"], "small") << "sorted by model, size, backend";
  EXPECT_EQ(ab["runs"][0]["backend"], "cpu");
}

TEST(SweepMerge, DuplicatesAndForeignRunsAreRejectedByName) {
  const auto all = jobs();
  const json d = doc_of(shard_jobs(all, {0, 2}), "");
  try {
    merge_documents({{"a.json", d}, {"again.json", d}}, {});
    FAIL() << "the same shard twice must be rejected";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("duplicate run"), std::string::npos) << msg;
    EXPECT_NE(msg.find("a.json runs[0]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("again.json runs[0]"), std::string::npos) << msg;
  }
  EXPECT_THROW(merge_documents({{"a.json", d}}, {"some/other/key"}), std::invalid_argument);
  std::vector<std::string> order;
  for (const auto& j : all) order.push_back(job_key(j));
  std::vector<std::string> missing;
  merge_documents({{"a.json", d}}, order, &missing);
  EXPECT_EQ(missing.size(), 2u) << "shard 1's jobs are missing";
}

TEST(SweepMerge, RunsWithoutAJobKeyAreIdentifiedByTheirParameters) {
  json a = {{"model", "m"},           {"size", "tiny"},      {"backend", "cpu"},
            {"device", "d"},          {"mode", "inference"}, {"params", {{"batch", 1}}},
            {"stages", json::array()}};
  json b = a;
  b["params"]["batch"] = 2;
  EXPECT_NE(run_key(a), run_key(b));
  EXPECT_EQ(run_key(a).rfind("m/tiny/cpu/inference/", 0), 0u) << run_key(a);
  EXPECT_THROW(merge_documents({{"x", make_document({}, {a})}, {"y", make_document({}, {a})}}, {}),
               std::invalid_argument);
}

}  // namespace
}  // namespace sb
