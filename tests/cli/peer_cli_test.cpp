// `stagebench peer` without PyTorch (CI has python3, not torch): a fake interpreter, a shell
// script given as --python, answers `-c "import torch"` and writes canned variants where the
// reference script would. What is pinned: the block peer adds to a result
// (tests/reports/fixtures/reference.json, also the report tests' input), that nothing else in the
// result changes, the arguments the script gets, and the refusals (exit 2) and failures (exit 1)
// that leave the result as it was.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "schema/document.h"
#include "tests/common/golden.h"
#include "tests/common/run_stagebench.h"
#include "tests/common/temp_dir.h"

namespace peer_cli {

namespace fs = std::filesystem;
using sb::testing::run_stagebench;

const std::string kFixtures = SB_REPORTS_FIXTURES;

// What a reference script's --peer-json writes: three timed variants and one that failed, on
// the work of the fixture's Enformer tiny runs. bf16-autocast is the fastest but failed its
// check against PyTorch fp32, so PyTorch's best is tf32.
constexpr const char* kCannedVariants =
    R"({"torch": "2.5.1+cu124", "device": "NVIDIA H100 80GB HBM3",
 "model": "enformer", "size": "tiny", "timing": "canned by peer_cli_test",
 "work": {"batch": 1, "length": 4096, "layers": 2, "tokens": 32, "target": 16,
          "output": "embeddings, human, mouse"},
 "best": "bf16-autocast",
 "variants": [
  {"name": "fp32-eager", "median_s": 0.0425, "samples": 20, "peak_bytes": 123456789,
   "throughput": 23.529411764705884, "unit": "sequences/s", "precision": "fp32",
   "correct": true, "rel_l2": 0.0},
  {"name": "tf32", "median_s": 0.031, "samples": 20, "peak_bytes": 123456789,
   "throughput": 32.25806451612903, "unit": "sequences/s", "precision": "tf32",
   "correct": true, "rel_l2": 0.0008},
  {"name": "bf16-autocast", "median_s": 0.0187, "samples": 20, "peak_bytes": 80000000,
   "throughput": 53.475935828877006, "unit": "sequences/s", "precision": "bf16",
   "correct": false, "rel_l2": 0.2},
  {"name": "compile-tf32", "error": "RuntimeError: torch.compile needs a C++ compiler"}]})";

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class PeerCli : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::copy_file(kFixtures + "/ladder.json", result());
    dir_.write("enformer_torch.py", "# stands in for the reference script\n");
    dir_.write("variants.json", kCannedVariants);
    // argv: SCRIPT ARGS... --peer-json OUT; the arguments are kept for the test to read.
    fake_python("torch ok", "cp " + dir_.file("variants.json").string() + " \"$out\"");
  }

  // A shell script standing in for python: `-c` is the torch check, anything else the script.
  void fake_python(const std::string& torch_check, const std::string& run) {
    const std::string check =
        torch_check == "torch ok"
            ? "exit 0"
            : "echo \"ModuleNotFoundError: No module named 'torch'\" >&2; exit 1";
    const fs::path p = dir_.write(
        "python",
        "#!/bin/sh\nif [ \"$1\" = -c ]; then " + check + "; fi\necho \"$@\" > " +
            dir_.file("args.txt").string() +
            "\nwhile [ $# -gt 0 ]; do [ \"$1\" = --peer-json ] && out=\"$2\"; shift; done\n" + run +
            "\n");
    chmod(p.c_str(), 0755);
  }

  std::string peer(const std::string& extra = "", const std::string& size = "tiny") {
    return "peer enformer --size " + size + " --python " + dir_.file("python").string() +
           " --scripts " + dir_.path().string() + " -o " + result().string() + " " + extra;
  }

  fs::path result() const { return dir_.file("result.json"); }

  sb::testing::TempDir dir_;
};

TEST_F(PeerCli, AddsTheBlockToEveryRunOfTheModelAndSize) {
  const auto r = run_stagebench(peer());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("added 4 PyTorch variants (1 failed) to 2 runs"), std::string::npos)
      << r.output;
  // The whole file, pinned: the report and viewer tests read this fixture.
  sb::testing::expect_golden_file(kFixtures + "/reference.json", read(result()));
  const nlohmann::json doc = sb::read_document(result());
  const nlohmann::json& block = doc["runs"][1]["reference"];
  EXPECT_EQ(block["name"], "PyTorch on this machine");
  EXPECT_EQ(block["torch"], "2.5.1+cu124");
  EXPECT_EQ(block["script"], "scripts/reference/enformer_torch.py");
  EXPECT_DOUBLE_EQ(block["variants"][0]["median_ms"].get<double>(), 42.5);
  EXPECT_EQ(block["variants"][3]["median_ms"], nullptr);
  EXPECT_EQ(block["variants"][3]["error"], "RuntimeError: torch.compile needs a C++ compiler");
  // The fastest variant that passed its check, whatever the script named.
  EXPECT_EQ(block["best"], "tf32");
  EXPECT_EQ(block["variants"][2]["correct"], false);
  EXPECT_EQ(block["work"]["length"], 4096);
}

// A training model's script times its inference forward as well: kept as the block's
// "inference" section with its own best (the fastest that passed), torch and device the
// script's, and its variants' medians in ms as the block's.
TEST_F(PeerCli, KeepsTheInferenceMenuAsASection) {
  nlohmann::json canned = nlohmann::json::parse(kCannedVariants);
  canned["inference"] = {
      {"timing", "one no_grad forward"},
      {"work", {{"batch", 1}}},
      {"variants",
       {{{"name", "fp32-eager"}, {"median_s", 0.004}, {"samples", 50}, {"correct", true}},
        {{"name", "compile"}, {"median_s", 0.001}, {"samples", 50}, {"correct", true}},
        {{"name", "bf16-autocast"}, {"median_s", 0.0005}, {"samples", 50}, {"correct", false}},
        {{"name", "cuda-graph"}, {"error", "not run: the peer's --deadline-s 9 was spent"}}}}};
  dir_.write("variants.json", canned.dump());
  const auto r = run_stagebench(peer());
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json doc = sb::read_document(result());
  const nlohmann::json& inf = doc["runs"][1]["reference"]["inference"];
  ASSERT_TRUE(inf.is_object()) << doc["runs"][1]["reference"].dump();
  EXPECT_EQ(inf["best"], "compile");
  EXPECT_EQ(inf["torch"], "2.5.1+cu124");
  EXPECT_EQ(inf["timing"], "one no_grad forward");
  ASSERT_EQ(inf["variants"].size(), 4u);
  EXPECT_DOUBLE_EQ(inf["variants"][1]["median_ms"].get<double>(), 1.0);
  EXPECT_EQ(inf["variants"][3]["median_ms"], nullptr);
  // A malformed menu is refused as the training one is, naming where.
  canned["inference"]["variants"][0]["median_s"] = "fast";
  dir_.write("variants.json", canned.dump());
  const auto bad = run_stagebench(peer());
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.output.find("inference: variants[0]"), std::string::npos) << bad.output;
}

// A peer timed on other shapes is no comparison: refused, naming each difference, and the
// result is left as it was.
TEST_F(PeerCli, RefusesAPeerThatDidOtherWork) {
  nlohmann::json canned = nlohmann::json::parse(kCannedVariants);
  canned["work"]["batch"] = 4;
  canned["work"].erase("layers");
  dir_.write("variants.json", canned.dump());
  const auto r = run_stagebench(peer());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("PyTorch's work differs from the enformer/tiny/cpu run's: batch: peer "
                          "4, run 1; layers: peer not given, run 2 (params.depth)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(read(result()), read(kFixtures + "/ladder.json"));
}

TEST_F(PeerCli, LeavesEverythingElseAsItWas) {
  ASSERT_EQ(run_stagebench(peer()).status, 0);
  nlohmann::json after = nlohmann::json::parse(read(result()));
  for (auto& run : after["runs"]) run.erase("reference");
  EXPECT_EQ(after, nlohmann::json::parse(read(kFixtures + "/ladder.json")));
  // Byte for byte on a file stagebench wrote itself (merge writes as run does): the old text
  // comes back once the block is taken out.
  ASSERT_EQ(run_stagebench("merge " + kFixtures + "/ladder.json -o " + result().string()).status,
            0);
  const std::string written = read(result());
  ASSERT_EQ(run_stagebench(peer()).status, 0);
  after = nlohmann::json::parse(read(result()));
  for (auto& run : after["runs"]) run.erase("reference");
  EXPECT_EQ(after.dump(2) + "\n", written);
  fs::copy_file(kFixtures + "/ladder.json", result(), fs::copy_options::overwrite_existing);
  ASSERT_EQ(run_stagebench(peer()).status, 0);
  // A second peer replaces the block rather than adding another.
  ASSERT_EQ(run_stagebench(peer()).status, 0);
  EXPECT_EQ(read(result()), read(kFixtures + "/reference.json"));
}

// A second call with --variants adds what the first one's deadline cut: the variants it ran
// replace theirs, the others stay, PyTorch's best is taken over all of them.
TEST_F(PeerCli, VariantsMergeIntoTheEarlierBlock) {
  // Nothing to add to yet: refused before the script runs.
  const auto none = run_stagebench(peer("--variants tf32"));
  EXPECT_EQ(none.status, 2) << none.output;
  EXPECT_EQ(none.output.find("stagebench peer: "), std::string::npos) << none.output;
  const auto blank = run_stagebench(peer("--variants ' '"));
  EXPECT_EQ(blank.status, 2) << blank.output;
  EXPECT_NE(blank.output.find("empty or blank variant"), std::string::npos) << blank.output;
  EXPECT_EQ(read(result()), read(kFixtures + "/ladder.json"));
  ASSERT_EQ(run_stagebench(peer()).status, 0);
  nlohmann::json canned = nlohmann::json::parse(kCannedVariants);
  canned["variants"] = nlohmann::json::array({{{"name", "compile-tf32"},
                                               {"median_s", 0.012},
                                               {"samples", 20},
                                               {"precision", "tf32"},
                                               {"correct", true},
                                               {"rel_l2", 0.0009}}});
  dir_.write("variants.json", canned.dump());
  const auto r = run_stagebench(peer("--variants compile-tf32"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(read(dir_.file("args.txt")).find(" --variants compile-tf32"), std::string::npos);
  const nlohmann::json block = sb::read_document(result())["runs"][0]["reference"];
  ASSERT_EQ(block["variants"].size(), 4u);
  EXPECT_EQ(block["variants"][0]["name"], "fp32-eager");  // the earlier order kept
  EXPECT_EQ(block["variants"][3]["name"], "compile-tf32");
  EXPECT_DOUBLE_EQ(block["variants"][3]["median_ms"].get<double>(), 12.0);  // this call's
  EXPECT_EQ(block["best"], "compile-tf32");
  EXPECT_EQ(block["merged"]["kept_from_earlier"],
            nlohmann::json::array({"fp32-eager", "tf32", "bf16-autocast"}));
  // Other work is no merge: refused, the file as it was.
  const std::string before = read(result());
  canned["work"]["batch"] = 4;
  dir_.write("variants.json", canned.dump());
  EXPECT_NE(run_stagebench(peer("--variants compile-tf32")).status, 0);
  EXPECT_EQ(read(result()), before);
}

TEST_F(PeerCli, PassesTheSizeDeviceRunsAndTheRunsBatch) {
  ASSERT_EQ(run_stagebench(peer("--device cpu --runs 7")).status, 0);
  const std::string args = read(dir_.file("args.txt"));
  EXPECT_NE(args.find("enformer_torch.py --size tiny --device cpu --runs 7 --peer-json "),
            std::string::npos)
      << args;
  EXPECT_NE(args.find(" --batch 1"), std::string::npos) << args;
}

TEST_F(PeerCli, WithoutTorchExitsTwoAndSaysSo) {
  fake_python("no torch", "exit 0");
  const auto r = run_stagebench(peer());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("PyTorch is not available to"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("No module named 'torch'"), std::string::npos) << r.output;
  EXPECT_EQ(read(result()), read(kFixtures + "/ladder.json"));
}

TEST_F(PeerCli, TakesThePythonFromTheEnvironment) {
  fake_python("no torch", "exit 0");
  const std::string cmd = "STAGEBENCH_PYTHON=" + dir_.file("python").string() + " " +
                          std::string(STAGEBENCH_BIN) + " peer enformer --size tiny --scripts " +
                          dir_.path().string() + " -o " + result().string() + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[512];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int st = pclose(p);
  EXPECT_EQ(WEXITSTATUS(st), 2) << out;
  EXPECT_NE(out.find(dir_.file("python").string()), std::string::npos) << out;
}

TEST_F(PeerCli, ScriptFailureExitsOneAndKeepsTheResult) {
  fake_python("torch ok", "echo 'CUDA error: out of memory' >&2; exit 3");
  const auto r = run_stagebench(peer());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("exited with status 3"), std::string::npos) << r.output;
  EXPECT_EQ(read(result()), read(kFixtures + "/ladder.json"));
}

TEST_F(PeerCli, UnusableScriptJsonExitsOne) {
  dir_.write("variants.json", R"({"torch": "2", "variants": [{"name": "fp32-eager"}]})");
  const auto r = run_stagebench(peer());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("neither median_s nor error"), std::string::npos) << r.output;
  EXPECT_EQ(read(result()), read(kFixtures + "/ladder.json"));
}

TEST_F(PeerCli, RefusesWhatItCannotAddTo) {
  auto r = run_stagebench(peer("", "full"));  // the result has tiny runs only
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("has no run of enformer size full"), std::string::npos) << r.output;
  fs::remove(result());
  r = run_stagebench(peer());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("does not exist"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(result()));
  r = run_stagebench("peer nosuchmodel -o " + result().string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("unknown model 'nosuchmodel'"), std::string::npos) << r.output;
  r = run_stagebench("peer gemm -o " + result().string());  // a model that registered no script
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("no PyTorch reference script for model 'gemm' (models with one: "
                          "enformer, geneformer, deepfm, dynunet)"),
            std::string::npos)
      << r.output;
}

}  // namespace peer_cli
