// The Google Benchmark JSON shape that github-action-benchmark and Bencher read.
#include <gtest/gtest.h>

#include "reports/gbench.h"

namespace sb {
namespace {

using nlohmann::json;

json stage(const std::string& id, const std::string& status, json median) {
  return {
      {"id", id},
      {"status", status},
      {"reason", status == "ok" ? json() : json("noise 3% > 1%")},
      {"time",
       {{"median_ms", median}, {"samples", 12}, {"cv", 0.01}, {"p10_ms", 1.0}, {"p90_ms", 3.0}}},
      {"speedup", {{"vs_baseline", 1.5}, {"ci95", {1.4, 1.6}}, {"vs_previous", nullptr}}},
      {"throughput", {{"items_per_s", 500.0}, {"gflops", nullptr}}},
      {"counters", {{"os::cpu_time_ns", {{"value", 4e6}}}}},
      {"correctness", {{"cosine", 0.999999}}},
      {"memory", {{"host_peak_bytes", 1024}, {"device_peak_bytes", nullptr}}}};
}

json doc() {
  json run = {{"model", "enformer"},
              {"size", "small"},
              {"backend", "cpu"},
              {"params", {{"batch", 1}}},
              {"complete", true},
              {"stages",
               {stage("original", "ok", 2.0), stage("fused-gelu", "invalid", 1.5),
                stage("bf16", "skipped", nullptr)}}};
  json partial = run;
  partial["complete"] = false;
  json batch4 = run;
  batch4["params"]["batch"] = 4;
  return {
      {"schema", "stagebench/1"},
      {"context",
       {{"date", "2025-01-01T00:00:00Z"},
        {"host", "box"},
        {"argv", {"/usr/bin/stagebench", "run"}},
        {"build", {{"type", "Release"}}},
        {"cpu",
         {{"logical_cores", 2}, {"mhz", 2299.9}, {"l1d_bytes", 49152}, {"l2_bytes", 2097152}}}}},
      {"runs", {run, partial, batch4}}};
}

TEST(Gbench, ContextHasTheKeysDashboardsRead) {
  const json g = gbench_document(doc());
  const json& c = g["context"];
  EXPECT_EQ(c["date"], "2025-01-01T00:00:00Z");
  EXPECT_EQ(c["host_name"], "box");
  EXPECT_EQ(c["executable"], "/usr/bin/stagebench");
  EXPECT_EQ(c["num_cpus"], 2);
  EXPECT_EQ(c["mhz_per_cpu"], 2300);
  EXPECT_EQ(c["library_build_type"], "release");
  ASSERT_EQ(c["caches"].size(), 2u);
  EXPECT_EQ(c["caches"][0]["type"], "Data");
  EXPECT_EQ(c["caches"][0]["level"], 1);
  EXPECT_EQ(c["caches"][0]["size"], 49152);
}

TEST(Gbench, OneIterationEntryPerMeasuredStageOfEveryCompleteRun) {
  const json g = gbench_document(doc());
  const json& b = g["benchmarks"];
  // run 0: original + fused-gelu (bf16 skipped); the partial run is left out; run 2 (batch 4).
  ASSERT_EQ(b.size(), 4u) << b.dump(1);
  EXPECT_EQ(b[0]["name"], "enformer/small/cpu/original");
  EXPECT_EQ(b[1]["name"], "enformer/small/cpu/fused-gelu");
  EXPECT_EQ(b[2]["name"], "enformer/small/cpu/batch:4/original");
  for (const auto& e : b) {
    EXPECT_EQ(e["run_name"], e["name"]);
    EXPECT_EQ(e["run_type"], "iteration");
    EXPECT_EQ(e["repetitions"], 1);
    EXPECT_EQ(e["threads"], 1);
    EXPECT_EQ(e["iterations"], 12);
    EXPECT_EQ(e["time_unit"], "ms");
    EXPECT_TRUE(e["real_time"].is_number());
    EXPECT_DOUBLE_EQ(e["cpu_time"].get<double>(), 4.0) << "process CPU time per sample, in ms";
    EXPECT_DOUBLE_EQ(e["items_per_second"].get<double>(), 500.0);
    EXPECT_DOUBLE_EQ(e["speedup_vs_baseline"].get<double>(), 1.5);
    EXPECT_FALSE(e.contains("gflops")) << "unknown values are left out, not invented";
    EXPECT_FALSE(e.contains("speedup_vs_previous"));
  }
  EXPECT_DOUBLE_EQ(b[0]["real_time"].get<double>(), 2.0);
  EXPECT_FALSE(b[0].contains("label"));
  EXPECT_EQ(b[1]["label"], "invalid: noise 3% > 1%");
}

TEST(Gbench, RunsThatWouldShareANameAreTold) {
  json d = doc();
  d["runs"][1]["complete"] = true;  // now two complete runs of enformer/small/cpu batch 1
  const json b = gbench_document(d)["benchmarks"];
  ASSERT_EQ(b.size(), 6u);
  EXPECT_EQ(b[0]["name"], "enformer/small/cpu/run:0/original");
  EXPECT_EQ(b[2]["name"], "enformer/small/cpu/run:1/original");
}

// Runs and stages are read as schema's records: a field of the wrong type is unknown, never the
// library's bare type_error (a model given as a number used to throw from json::value()).
TEST(Gbench, MalformedFieldsAreUnknownNotThrown) {
  json d = doc();
  d["runs"][0]["model"] = 3;
  d["runs"][0]["stages"][0]["time"]["cv"] = "low";
  d["runs"][0]["stages"][0]["papi"] = {{"events", 2}};  // a collector's section: ignored
  json b;
  ASSERT_NO_THROW(b = gbench_document(d)["benchmarks"]);
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0]["name"], "?/small/cpu/original");
  EXPECT_FALSE(b[0].contains("cv"));
  EXPECT_DOUBLE_EQ(b[1]["cv"].get<double>(), 0.01);
}

}  // namespace
}  // namespace sb
