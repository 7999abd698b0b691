// Whether a journal's run is its job's (issue 29): each field a record could have wrong, and the
// files that are not this sweep's journal.
#include <gtest/gtest.h>

#include "harness/journal_match.h"

namespace sb {
namespace {

using nlohmann::json;

// Options as models declare them (contract/model_options.h): the harness knows their types and
// the params keys runs record them under, not the models.
const std::vector<OptionSpec> kModelOptions = {
    {"length", "", OptionType::integer, {}, "input_bp"},
    {"target", "", OptionType::integer, {}, "target"},
    {"heads", "", OptionType::integer, {}, "heads"},
    {"eps", "", OptionType::number, {}, "layer_norm_eps", true},
};

SweepJob job_of(const std::string& entry) {
  return expand_sweep(json::parse(R"({"entries": [)" + entry + "]}"), "s.json", kModelOptions)
      .at(0);
}

// The run a sweep journals for `job`, as a real model records it.
json run_of(const SweepJob& job) {
  return {
      {"model", job.model},
      {"size", job.size},
      {"backend", job.backend},
      {"device", "NVIDIA H100 80GB HBM3"},
      {"mode", "inference"},
      {"params",
       {{"batch", job.batch},
        {"input_bp", 4096},
        {"target", 16},
        {"weights", job.weights.empty() ? "seeded random (seed " + std::to_string(job.seed) + ")"
                                        : job.weights}}},
      {"complete", true},
      {"job", {{"key", job_key(job)}, {"index", job.index}, {"origin", job.origin}}},
      {"stages", json::array()}};
}

TEST(JournalMatch, TheJobsOwnRunMatches) {
  const SweepJob job = job_of(
      R"({"models": "enformer", "sizes": "tiny", "backends": "opencl", "device": "h100",
          "batch": 2, "seed": 7, "length": 4096, "target": 16})");
  EXPECT_EQ(run_mismatch(run_of(job), job_key(job), job), "");
  const SweepJob index = job_of(R"({"models": "enformer", "sizes": "tiny", "backends": "opencl",
                                    "device": "0:1"})");
  EXPECT_EQ(run_mismatch(run_of(index), job_key(index), index), "")
      << "a P:D device cannot be told from the name";
}

TEST(JournalMatch, EachFieldThatDiffersIsNamed) {
  const SweepJob job = job_of(
      R"({"models": "enformer", "sizes": "tiny", "backends": "opencl", "device": "h100",
          "batch": 2, "seed": 7, "length": 4096, "target": 16})");
  const std::string key = job_key(job);
  struct Case {
    const char* pointer;
    json value;
    const char* named;
  };
  for (const Case& c : {
           Case{"/job/key", "enformer/tiny/opencl/0000000000000000",
                "holds the run of job enformer/tiny/opencl/0000000000000000"},
           Case{"/model", "geneformer", "is a run of model geneformer, not the job's enformer"},
           Case{"/size", "small", "is a run of size small, not the job's tiny"},
           Case{"/backend", "cpu", "is a run of backend cpu, not the job's opencl"},
           Case{"/device", "AMD Instinct MI300X",
                "device 'AMD Instinct MI300X', which the job's 'h100' does not name"},
           Case{"/params/batch", 4, "is a run of batch 4, not the job's 2"},
           Case{"/params/weights", "seeded random (seed 8)", "not the job's seed 7"},
           Case{"/params/weights", "w.safetensors", "not the job's seeded random ones"},
           Case{"/params/input_bp", 8192, "is a run of input_bp 8192, not the job's 4096"},
           Case{"/params/target", 32, "is a run of target 32, not the job's 16"},
       }) {
    json run = run_of(job);
    run[json::json_pointer(c.pointer)] = c.value;
    EXPECT_NE(run_mismatch(run, key, job).find(c.named), std::string::npos)
        << c.pointer << ": " << run_mismatch(run, key, job);
  }
  json untagged = run_of(job);
  untagged.erase("job");
  EXPECT_NE(run_mismatch(untagged, key, job).find("without a job tag"), std::string::npos);
}

// Found by the hostile-input campaign (issue 29): the GEMM benchmark has no weights, and a
// record of another seed's run was taken as its job's.
TEST(JournalMatch, TheGemmSeedIsComparedThroughItsInputs) {
  const SweepJob job = job_of(R"({"models": "gemm", "sizes": "tiny", "backends": "cpu",
                                  "seed": 2})");
  json run = run_of(job);
  run["params"] = {{"inputs", "x and W seeded uniform in [-1, 1) (seed 2)"}};
  EXPECT_EQ(run_mismatch(run, job_key(job), job), "");
  run["params"]["inputs"] = "x and W seeded uniform in [-1, 1) (seed 1)";
  EXPECT_NE(run_mismatch(run, job_key(job), job).find("(seed 1), not the job's seed 2"),
            std::string::npos)
      << run_mismatch(run, job_key(job), job);
}

TEST(JournalMatch, WeightsAndGeneformersChoicesAreCompared) {
  const SweepJob job = job_of(R"({"models": "geneformer", "sizes": "tiny", "backends": "cpu",
                                  "weights": "ck/model.safetensors", "heads": 4, "eps": 1e-5})");
  json run = run_of(job);
  run["params"]["heads"] = 4;
  run["params"]["layer_norm_eps"] = static_cast<double>(1e-5f);  // stored as the model's float
  EXPECT_EQ(run_mismatch(run, job_key(job), job), "");
  run["params"]["heads"] = 8;
  EXPECT_NE(run_mismatch(run, job_key(job), job).find("heads 8, not the job's 4"),
            std::string::npos);
  run["params"]["heads"] = 4;
  run["params"]["layer_norm_eps"] = 1e-12;
  EXPECT_NE(run_mismatch(run, job_key(job), job).find("layer_norm_eps"), std::string::npos);
  run["params"]["layer_norm_eps"] = static_cast<double>(1e-5f);
  run["params"]["weights"] = "other.safetensors";
  EXPECT_NE(run_mismatch(run, job_key(job), job)
                .find("weights other.safetensors, not the job's ck/model.safetensors"),
            std::string::npos);
}

// A job's stub (it failed, or its backend could not be made) records the batch alone.
TEST(JournalMatch, AStubRunMatchesItsJob) {
  const SweepJob job = job_of(R"({"models": "gemm", "sizes": "tiny", "backends": "opencl"})");
  json stub = {{"model", "gemm"},         {"size", "tiny"},
               {"backend", "opencl"},     {"device", "none found"},
               {"mode", "inference"},     {"params", json::object()},
               {"status", "skipped"},     {"reason", "no device"},
               {"stages", json::array()}, {"job", {{"key", job_key(job)}}}};
  EXPECT_EQ(run_mismatch(stub, job_key(job), job), "") << "no batch recorded: batch 1";
}

TEST(JournalOwner, NewEmptyOursAndOthers) {
  const std::vector<std::string> keys = {"m/tiny/cpu/1", "m/tiny/cpu/2"};
  JournalContents j;
  EXPECT_NO_THROW(check_journal_owner("j", j, keys, "s.json")) << "missing or empty: a new one";
  j.lines = 40;  // a result file: lines, none a record
  EXPECT_THROW(check_journal_owner("j", j, keys, "s.json"), std::invalid_argument);
  j.starts.push_back({{"type", "start"}, {"config", "t.json"}, {"jobs", {"m/tiny/cpu/9"}}});
  EXPECT_THROW(check_journal_owner("j", j, keys, "s.json"), std::invalid_argument)
      << "another sweep's";
  j.failed["m/tiny/cpu/2"] = json::object();
  EXPECT_NO_THROW(check_journal_owner("j", j, keys, "s.json")) << "one of its keys is ours";
  j.failed.clear();
  j.starts.push_back({{"type", "start"}, {"config", "./s.json"}, {"jobs", json::array()}});
  EXPECT_NO_THROW(check_journal_owner("j", j, keys, "s.json")) << "it names our sweep file";
}

}  // namespace
}  // namespace sb
