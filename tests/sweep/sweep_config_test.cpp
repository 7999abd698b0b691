// Sweep files: expansion order, defaults, errors that name the file and the field, job keys,
// shards.
#include <gtest/gtest.h>

#include <set>

#include "harness/sweep_config.h"
#include "tests/common/temp_dir.h"

namespace sb {
namespace {

using nlohmann::json;

json two_entries() {
  return json::parse(R"({
    "name": "t",
    "defaults": {"runner": {"max_time": 2, "min_samples": 3}, "ceilings": false},
    "entries": [
      {"models": ["enformer"], "sizes": ["tiny", "small"], "backends": ["cpu", "opencl"],
       "batch": [1, 2]},
      {"models": "enformer", "sizes": "tiny", "backends": "cpu", "stages": ["fused-gelu"],
       "runner": {"max_samples": 7}}
    ]})");
}

// The message of the std::invalid_argument that expand_sweep throws, or "" when it does not.
std::string error_of(const json& sweep) {
  try {
    expand_sweep(sweep, "s.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(SweepConfig, ExpandsEntriesInOrderModelsSizesBackendsBatches) {
  const auto jobs = expand_sweep(two_entries(), "s.json");
  ASSERT_EQ(jobs.size(), 9u);
  EXPECT_EQ(jobs[0].size, "tiny");
  EXPECT_EQ(jobs[0].backend, "cpu");
  EXPECT_EQ(jobs[0].batch, 1);
  EXPECT_EQ(jobs[1].batch, 2);
  EXPECT_EQ(jobs[2].backend, "opencl");
  EXPECT_EQ(jobs[4].size, "small");
  EXPECT_EQ(jobs[8].stages, std::vector<std::string>{"fused-gelu"});
  for (size_t i = 0; i < jobs.size(); ++i) EXPECT_EQ(jobs[i].index, i);
  // Defaults apply, and an entry's runner block overrides them key by key.
  EXPECT_EQ(jobs[8].runner.max_time_s, 2);
  EXPECT_EQ(jobs[8].runner.min_samples, 3);
  EXPECT_EQ(jobs[8].runner.max_samples, 7);
  EXPECT_FALSE(jobs[0].ceilings);
  EXPECT_EQ(jobs[8].origin, "s.json: entries[1]");
}

TEST(SweepConfig, JobKeysAreStableAndDistinct) {
  const auto a = expand_sweep(two_entries(), "a.json");
  const auto b = expand_sweep(two_entries(), "b.json");
  std::set<std::string> keys;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(job_key(a[i]), job_key(b[i])) << "the key does not depend on where the job came from";
    keys.insert(job_key(a[i]));
  }
  EXPECT_EQ(keys.size(), a.size());
  EXPECT_EQ(job_key(a[0]).rfind("enformer/tiny/cpu/", 0), 0u) << job_key(a[0]);
  SweepJob changed = a[0];
  changed.runner.max_time_s = 3;
  EXPECT_NE(job_key(changed), job_key(a[0])) << "runner options are part of the job";
}

// stable_checks fills the run's option; a sweep that leaves it at its default keeps the keys
// journals written before it existed.
TEST(SweepConfig, StableChecksAreReadAndKeyedOnlyWhenSet) {
  const auto entry = [](const char* runner) {
    return json::parse(std::string(R"({"entries": [{"models": "enformer", "sizes": "tiny",
                                        "backends": "cpu", "runner": )") +
                       runner + "}]}");
  };
  const auto plain = expand_sweep(entry("{}"), "s.json");
  const auto stable = expand_sweep(entry(R"({"stable_checks": 10})"), "s.json");
  ASSERT_EQ(plain.size(), 1u);
  ASSERT_EQ(stable.size(), 1u);
  EXPECT_EQ(plain[0].runner.stable_checks, 1u);
  EXPECT_EQ(stable[0].runner.stable_checks, 10u);
  EXPECT_FALSE(job_spec(plain[0])["runner"].contains("stable_checks"));
  EXPECT_EQ(job_spec(stable[0])["runner"]["stable_checks"], 10);
  EXPECT_NE(job_key(stable[0]), job_key(plain[0]));
  EXPECT_NE(error_of(entry(R"({"stable_checks": 0})"))
                .find("s.json: entries[0].runner.stable_checks: must be >= 1"),
            std::string::npos);
}

TEST(SweepConfig, ErrorsNameTheFileAndTheField) {
  struct Case {
    const char* sweep;
    const char* needle;
  };
  const Case cases[] = {
      {R"({"entries": []})", "s.json: entries: must not be empty"},
      {R"({"entry": []})", "s.json: entry: unknown key"},
      {R"({"entries": [{"sizes": ["tiny"], "backends": ["cpu"]}]})",
       "s.json: entries[0].models: missing"},
      {R"({"entries": [{"models": ["enformer"], "sizes": ["tiny", 3], "backends": ["cpu"]}]})",
       "s.json: entries[0].sizes[1]: expected a string"},
      {R"({"entries": [{"models": "enformer", "sizes": "tiny", "backends": "cpu", "bakends": 1}]})",
       "s.json: entries[0].bakends: unknown key"},
      {R"({"entries": [{"models": "enformer", "sizes": "tiny", "backends": "cpu",
                        "batch": [1, 0]}]})",
       "s.json: entries[0].batch[1]: must be >= 1"},
      {R"({"entries": [{"models": "enformer", "sizes": "tiny", "backends": "cpu",
                        "runner": {"min_samples": 5, "max_samples": 2}}]})",
       "s.json: entries[0].runner.max_samples: must be >= min_samples"},
      {R"({"defaults": {"runner": {"noise": 0}},
           "entries": [{"models": "enformer", "sizes": "tiny", "backends": "cpu"}]})",
       "s.json: entries[0].runner.noise: must be > 0"},
      {R"({"entries": [{"models": "enformer", "sizes": "tiny", "backends": "cpu"},
                       {"models": "enformer", "sizes": "tiny", "backends": ["opencl", "cpu"]}]})",
       "s.json: entries[1]: repeats the job enformer/tiny/cpu batch 1 of entries[0]"},
  };
  for (const Case& c : cases) {
    const std::string msg = error_of(json::parse(c.sweep));
    EXPECT_NE(msg.find(c.needle), std::string::npos) << c.sweep << "\n -> " << msg;
  }
}

TEST(SweepConfig, FileErrorsNameTheFile) {
  testing::TempDir dir;
  const auto bad = dir.write("broken.json", "{\"entries\": [");
  try {
    read_sweep_file(bad);
    FAIL() << "a truncated file must not parse";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(bad.string()), std::string::npos) << e.what();
  }
  const auto field = dir.write("field.json", R"({"entries": [{"models": 1}]})");
  try {
    read_sweep_file(field);
    FAIL() << "a number is not a model list";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(field.string() + ": entries[0].models"), std::string::npos)
        << e.what();
  }
}

TEST(SweepConfig, ShardsPartitionTheJobsExactlyOnce) {
  const auto jobs = expand_sweep(two_entries(), "s.json");
  for (size_t n = 1; n <= 4; ++n) {
    std::vector<size_t> hits(jobs.size(), 0);
    for (size_t i = 0; i < n; ++i) {
      const auto part = shard_jobs(jobs, parse_shard(std::to_string(i) + "/" + std::to_string(n)));
      for (size_t k = 1; k < part.size(); ++k) EXPECT_LT(part[k - 1].index, part[k].index);
      for (const auto& j : part) {
        EXPECT_EQ(j.index % n, i);
        ++hits[j.index];
      }
    }
    for (size_t j = 0; j < jobs.size(); ++j) EXPECT_EQ(hits[j], 1u) << "job " << j << " of N=" << n;
  }
}

TEST(SweepConfig, ShardTextIsValidated) {
  EXPECT_EQ(parse_shard("1/3").index, 1u);
  EXPECT_EQ(parse_shard("1/3").count, 3u);
  for (const char* bad : {"2/2", "0/0", "1", "-1/2", "a/b", "1/", "/2"})
    EXPECT_THROW(parse_shard(bad), std::invalid_argument) << bad;
}

}  // namespace
}  // namespace sb
