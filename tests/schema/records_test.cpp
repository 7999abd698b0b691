// The one to_json/from_json pair: what the writer writes the reader reads back unchanged, every
// block is written with all its keys, and the reader names each malformed field by its path.
#include "schema/records.h"

#include <gtest/gtest.h>

namespace sb {
namespace {

using json = nlohmann::json;

StageRecord measured_stage() {
  StageRecord s;
  s.id = "fused";
  s.title = "Fused";
  s.claim.source = "seed 000";
  s.claim.text = "faster";
  s.claim.speedup = 1.5;
  s.status = "invalid";
  s.reason = "noise 2.0% > 1.0%";
  s.reasons = {"noise 2.0% > 1.0%"};
  s.time.median_ms = 2.5;
  s.time.p10_ms = 2.4;
  s.time.p90_ms = 2.7;
  s.time.samples = 7;
  s.time.stop_reason = "max samples 7 (noise 2.0%)";
  s.speedup.vs_baseline = 1.4;
  s.speedup.ci95 = std::array<Number, 2>{1.3, 1.5};
  s.throughput.items_per_s = 1600;
  s.throughput.item_name = "cells";
  s.memory.device_peak_bytes = 1 << 20;
  s.memory.rss_reset = true;
  s.counters["perf::TASK-CLOCK"] = {1e6, 2.5e5, "software", "calling thread", {}};
  s.opencl = {{"kernels", json::array()}, {"h2d_bytes", 0}};
  s.correctness.cosine = 0.9999, s.correctness.max_abs = 1e-3, s.correctness.rel_l2 = 1e-4;
  s.correctness.tolerance = 0.9999, s.correctness.basis = "tf32";
  s.correctness.loss_max_rel = 2e-5, s.correctness.loss_tolerance = 5e-3;
  s.correctness.pass = true;
  s.summaries = {{"graph", {{"passes", 6}}}};
  s.samples_ms = std::vector<double>{2.4, 2.5, 2.7};
  s.sections["papi"] = {{"available", false}};
  s.gemm_path = "wgmma+mma.sync";
  return s;
}

TEST(Records, StageRoundTripsThroughJson) {
  const json written = measured_stage();
  const StageRecord back = written.get<StageRecord>();
  EXPECT_EQ(json(back), written);
  EXPECT_EQ(back.counters.at("perf::TASK-CLOCK").scope, "calling thread");
  EXPECT_EQ(back.sections.at("papi").at("available"), false);
  EXPECT_EQ(back.gemm_path, "wgmma+mma.sync");
  EXPECT_FALSE(back.sections.count("gemm_path")) << "a known key, not a newer writer's section";
}

TEST(Records, EveryBlockHasAllItsKeysWhateverTheStatus) {
  StageRecord skipped;
  skipped.id = "int8";
  skipped.status = "skipped";
  const json j = skipped;
  for (const char* block : {"time", "speedup", "throughput", "memory", "correctness", "claim"})
    ASSERT_TRUE(j.at(block).is_object()) << block;
  EXPECT_EQ(j.at("time").size(), 10u);
  EXPECT_EQ(j.at("throughput").size(), 6u);
  EXPECT_EQ(j.at("memory").size(), 4u);
  EXPECT_TRUE(j.at("throughput").at("roofline_frac").is_null());
  EXPECT_TRUE(j.at("opencl").is_null());
  EXPECT_TRUE(j.at("gemm_path").is_null()) << "written, null, when no tensor-core GEMM ran";
  EXPECT_FALSE(j.contains("summaries"));
}

TEST(Records, NonFiniteNumbersAreWrittenAsNull) {
  StageRecord s;
  s.id = "x";
  s.time.median_ms = std::numeric_limits<double>::infinity();
  s.correctness.cosine = std::nan("");
  const json j = s;
  EXPECT_TRUE(j.at("time").at("median_ms").is_null());
  EXPECT_TRUE(j.at("correctness").at("cosine").is_null());
}

// A run of one measured stage, as the writer makes it.
RunRecord tiny_geneformer_run() {
  RunRecord run;
  run.model = "geneformer";
  run.size = "tiny";
  run.backend = "cpu";
  run.device = "host";
  run.stages.push_back(measured_stage());
  return run;
}

TEST(Records, RunKeepsWhatANewerWriterAdded) {
  RunRecord run = tiny_geneformer_run();
  json j = run;
  j["peer"] = {{"torch", "2.11"}};
  const RunRecord back = j.get<RunRecord>();
  EXPECT_EQ(json(back), j);
}

// A run with --ceiling once wrote given ceilings that every reader refused (the reader wanted an
// object per precision): they round-trip, and a non-number among them is named.
TEST(Records, GivenCeilingsRoundTripAndAreChecked) {
  RunRecord run;
  run.model = "gemm";
  run.size = "full";
  run.backend = "opencl";
  run.device = "gpu";
  run.ceilings.emplace();
  run.ceilings->gemm_fp32_gflops = 51000;
  run.ceilings->gemm_gflops_given = {{"fp16", 742528}, {"tf32", 398670}};
  json j = run;
  const RunRecord back = j.get<RunRecord>();
  ASSERT_TRUE(back.ceilings);
  EXPECT_EQ(back.ceilings->gemm_gflops_given, run.ceilings->gemm_gflops_given);
  EXPECT_EQ(json(back), j);
  j["ceilings"]["gemm_gflops_given"]["fp16"] = "fast";
  try {
    (void)j.get<RunRecord>();
    ADD_FAILURE() << "a string ceiling was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("gemm_gflops_given.fp16: expected a number, got string"),
              std::string::npos)
        << e.what();
  }
}

TEST(Records, ReaderNamesEveryProblemByPath) {
  json stage = json(measured_stage());
  stage["time"]["samples"] = -3;
  stage["samples_ms"] = {1, "two"};
  stage["reasons"] = {"a", 5};
  stage["counters"]["perf::TASK-CLOCK"]["value"] = "lots";
  stage["status"] = "great";
  std::vector<std::string> problems;
  read_stage(stage, "runs[0].stages[1]", problems);
  const std::vector<std::string> expected = {
      "runs[0].stages[1].status: 'great' is not one of ok, skipped, failed, invalid",
      "runs[0].stages[1].reasons[1]: expected a string, got number",
      "runs[0].stages[1].time.samples: expected a whole count >= 0, got -3",
      "runs[0].stages[1].counters.perf::TASK-CLOCK.value: expected a number or null, got string",
      "runs[0].stages[1].samples_ms[1]: expected a number, got string"};
  EXPECT_EQ(problems, expected);
  EXPECT_THROW(stage.get<StageRecord>(), std::invalid_argument);
}

TEST(Records, ARunNeedsItsIdentityAndAKnownMode) {
  std::vector<std::string> problems;
  read_run({{"model", "m"}, {"mode", "training"}, {"params", 3}}, "runs[2]", problems);
  const std::vector<std::string> expected = {"runs[2].size: missing",
                                             "runs[2].backend: missing",
                                             "runs[2].device: missing",
                                             "runs[2].mode: 'training' is not inference or train",
                                             "runs[2].params: expected an object, got number",
                                             "runs[2].stages: missing"};
  EXPECT_EQ(problems, expected);
}

// A document read into records and written back is the same document: what a newer writer
// added at the top, in a run, a stage or the context comes back as it was.
TEST(Records, DocumentKeepsWhatANewerWriterAdded) {
  RunRecord run = tiny_geneformer_run();
  json doc = {{"schema", kSchema}, {"context", {{"host", "h"}, {"new", {1, 2}}}}, {"runs", {run}}};
  doc["runs"][0]["stages"][0]["papi"] = {{"events", 3}};
  doc["runs"][0]["batch_search"] = {{"stage", "fused"}};
  doc["merged_from"] = {"a.json", "b.json"};
  std::vector<std::string> problems;
  const DocumentRecord d = read_document_record(doc, problems);
  EXPECT_TRUE(problems.empty()) << problems.front();
  ASSERT_EQ(d.runs.size(), 1u);
  EXPECT_EQ(d.runs[0].stages[0].sections.at("papi"), doc["runs"][0]["stages"][0]["papi"]);
  EXPECT_EQ(json(d), doc);
}

TEST(Records, DocumentProblemsAreNamedAsTheValidatorNamesThem) {
  std::vector<std::string> problems;
  read_document_record({{"schema", "stagebench/0"}, {"runs", {{{"model", 1}}}}}, problems);
  ASSERT_GE(problems.size(), 3u);
  EXPECT_EQ(problems[0], "schema: unsupported \"stagebench/0\" (expected \"stagebench/1\")");
  EXPECT_EQ(problems[1], "document.context: missing");
  EXPECT_EQ(problems[2], "runs[0].model: expected a string, got number");
  problems.clear();
  read_document_record(json::array(), problems);
  EXPECT_EQ(problems, std::vector<std::string>{"document: expected a JSON object, got array"});
}

// The OpenCL collector's kernels, typed; a malformed entry is unknown rather than a throw.
TEST(Records, OpenclKernelsAreReadFromTheOpenBlock) {
  StageRecord s = measured_stage();
  EXPECT_TRUE(read_opencl(s).present);
  EXPECT_TRUE(read_opencl(s).kernels.empty());
  EXPECT_EQ(read_opencl(s).h2d_bytes, 0);
  s.opencl = nullptr;  // the collector did not report
  EXPECT_FALSE(read_opencl(s).present);
  s.opencl = {{"kernels",
               {{{"name", "gemm"}, {"launches", 4}, {"total_ns", 2e6}},
                {{"name", 7}, {"launches", "x"}},
                3}},
              {"h2d_bytes", 1024},
              {"d2h_bytes", "many"},
              {"gemm_calls", {{"mma.sync", 2}}}};
  const OpenclRecord cl = read_opencl(s);
  EXPECT_TRUE(cl.present);
  EXPECT_EQ(cl.h2d_bytes, 1024);
  EXPECT_FALSE(cl.d2h_bytes);
  const std::vector<KernelRecord>& k = cl.kernels;
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].name, "gemm");
  EXPECT_EQ(k[0].launches, 4);
  EXPECT_EQ(k[0].total_ns, 2e6);
  EXPECT_EQ(k[1].name, "");
  EXPECT_FALSE(k[1].launches);
}

}  // namespace
}  // namespace sb
