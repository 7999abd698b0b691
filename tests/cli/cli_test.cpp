// The stagebench binary end to end: bad input exits 2 with a message naming the problem, and a
// tiny run writes a valid stagebench/1 document with every requested stage.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "schema/document.h"
#include "tests/cli/trace_event_format.h"
#include "tests/common/run_stagebench.h"

namespace cli {  // named: the files share one unity unit (CMakeLists.txt)

using Result = sb::testing::CommandResult;

Result run(const std::string& args) {
  return sb::testing::run_stagebench(args);
}

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("sb_cli_" + std::to_string(std::random_device{}()) + "_" + name);
}

TEST(Cli, UnknownModelStageSizeBackendAndDeviceAreBadInput) {
  struct Case {
    std::string args, needle;
  };
  for (const Case& c :
       {Case{"run nomodel", "unknown model 'nomodel'"},
        Case{"run enformer --size huge", "unknown size 'huge'"},
        Case{"run enformer --size tiny --stages original,warp", "unknown stage 'warp'"},
        Case{"run enformer --size tiny --backend cuda", "unknown backend 'cuda'"},
        Case{"run enformer --size tiny --backend opencl --device no-such-gpu", "no-such-gpu"},
        Case{"report /nonexistent/file.json", "nonexistent"},
        Case{"run enformer --size tiny --timeline /dev/null/t.json", "--timeline"},
        Case{"trace deepfm --size tiny --out x", "`trace` is now `export-steps`"},
        Case{"run geneformer --size tiny --stages eager tensorrt", "unknown stage 'tensorrt'"},
        Case{"infer geneformer --input /nonexistent/ids.npy --output o.safetensors",
             "nonexistent"}}) {
    const Result r = run(c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.needle), std::string::npos) << c.args << "\n" << r.output;
  }
}

TEST(Cli, MalformedResultFileIsNamed) {
  const auto f = temp_file("bad.json");
  FILE* out = std::fopen(f.c_str(), "w");
  ASSERT_NE(out, nullptr);
  std::fputs("{\"schema\": \"stagebench/1\", \"runs\": [", out);
  std::fclose(out);
  const Result r = run("report " + f.string());
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find(f.filename().string()), std::string::npos) << r.output;
  std::filesystem::remove(f);
}

TEST(Cli, TinyRunWritesAValidDocument) {
  const auto f = temp_file("run.json");
  const Result r =
      run("run enformer --size tiny --backend cpu --stages fused-gelu,graph-compile "
          "--max-time 2 --warmup 0.05 --min-samples 3 --no-ceilings -q -o " +
          f.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json doc = sb::read_document(f);
  ASSERT_EQ(doc["runs"].size(), 1u);
  const auto& stages = doc["runs"][0]["stages"];
  ASSERT_EQ(stages.size(), 3u);  // the baseline is always measured
  EXPECT_EQ(stages[0]["id"], "original");
  EXPECT_EQ(stages[2]["id"], "graph-compile");
  for (const auto& s : stages) {
    EXPECT_TRUE(s["correctness"]["pass"].get<bool>()) << s.dump();
    EXPECT_GT(s["time"]["median_ms"].get<double>(), 0.0);
  }
  EXPECT_NE(r.output.find("graph-compile"), std::string::npos) << "ladder table printed";
  std::filesystem::remove(f);
}

// --repeat K: K fresh processes merged into one run whose stages hold every process's median.
TEST(Cli, RepeatMergesFreshProcesses) {
  const auto f = temp_file("repeat.json");
  const Result r =
      run("run enformer --size tiny --backend cpu --stages graph-compile --repeat 2 "
          "--max-time 1 --warmup 0.05 --min-samples 3 --no-ceilings -q -o " +
          f.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json doc = sb::read_document(f);
  EXPECT_EQ(doc["context"]["repeat"]["processes"], 2);
  ASSERT_EQ(doc["runs"].size(), 1u);
  EXPECT_EQ(doc["runs"][0]["repeat"]["processes"], 2);
  for (const auto& s : doc["runs"][0]["stages"]) {
    EXPECT_EQ(s["repeat"]["median_ms"].size(), 2u) << s.dump();
    EXPECT_EQ(s["samples_ms"].size(), s["time"]["samples"].get<size_t>());
    EXPECT_TRUE(s["speedup"]["ci95_coverage"].is_number()) << s.dump();
  }
  EXPECT_FALSE(std::filesystem::exists(f.string() + ".repeat-1.json")) << "process files go";
  EXPECT_NE(r.output.find("2 processes merged"), std::string::npos) << r.output;
  std::filesystem::remove(f);
  EXPECT_EQ(run("run enformer --size tiny --repeat 0 -o " + f.string()).status, 2);
}

TEST(Cli, GeneformerTinyRunRecordsItsSummaries) {
  const auto f = temp_file("geneformer.json");
  const Result r =
      run("run geneformer --size tiny --backend cpu --stages onnx-graph engine-int8 --max-time 2 "
          "--warmup 0.05 --min-samples 3 --no-ceilings -q -o " +
          f.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json doc = sb::read_document(f);
  nlohmann::json stages = doc["runs"][0]["stages"];
  ASSERT_EQ(stages.size(), 3u);
  EXPECT_EQ(stages[0]["id"], "eager");
  EXPECT_EQ(stages[1]["summaries"]["graph"]["passes"].size(), 5u);
  if (stages[2]["status"] == "skipped") {  // a CPU without VNNI has no exact int8 GEMM
    EXPECT_NE(stages[2]["reason"].get<std::string>().find("VNNI"), std::string::npos);
    stages.erase(2);
  } else {
    EXPECT_EQ(stages[2]["summaries"]["calibration"]["batches"], 4);
    EXPECT_EQ(stages[2]["throughput"]["item_name"], "cells");
  }
  for (const auto& s : stages) EXPECT_TRUE(s["correctness"]["pass"].get<bool>()) << s.dump();
  std::filesystem::remove(f);
}

// A float32 .npy of token ids, written by hand so that the test needs nothing but the binary.
void write_ids_npy(const std::filesystem::path& path, const std::vector<float>& ids, int rows) {
  FILE* out = std::fopen(path.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "(" + std::to_string(...).
  std::string shape = "(";
  shape += std::to_string(rows);
  shape += ", ";
  shape += std::to_string(ids.size() / rows);
  shape += ")";
  const std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  const std::string h = header + std::string(118 - header.size() - 1, ' ') + "\n";
  std::fwrite("\x93NUMPY\x01\x00", 1, 8, out);
  const uint16_t len = static_cast<uint16_t>(h.size());
  std::fwrite(&len, 2, 1, out);
  std::fwrite(h.data(), 1, h.size(), out);
  std::fwrite(ids.data(), 4, ids.size(), out);
  std::fclose(out);
}

TEST(Cli, GeneformerInferNamesABadTokenId) {
  const auto ids = temp_file("ids.npy");
  write_ids_npy(ids, {5.f, 99999.f, 0.f}, 1);
  const Result r = run("infer geneformer --size tiny --input " + ids.string() + " --output " +
                       temp_file("o.safetensors").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("99999"), std::string::npos) << r.output;
  std::filesystem::remove(ids);
}

// An input holding NaN ran to NaN outputs and exit 0 (issue 29): infer checks what it writes and
// fails (exit 1) naming the first tensor that is not finite, the file kept for inspection.
TEST(Cli, InferFailsNamingAnOutputThatIsNotFinite) {
  const auto x = temp_file("one_hot.npy");
  // Finite, as an input must be (a NaN in it is bad input), but so large that the stem's
  // convolution overflows and the forward ends in NaN.
  std::vector<float> one_hot(4096 * 4, 0.f);
  for (size_t i = 0; i < 4096; ++i) one_hot[i * 4 + i % 4] = std::numeric_limits<float>::max();
  write_ids_npy(x, one_hot, 4096);  // [4096, 4]: one-hot, batch 1
  const auto out = temp_file("y.safetensors");
  const Result r =
      run("infer enformer --size tiny --input " + x.string() + " --output " + out.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("stagebench infer: the output is not finite: tensor 'embeddings' "
                          "holds NaN at element "),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(std::filesystem::exists(out));
  std::filesystem::remove(x);
  std::filesystem::remove(out);
}

TEST(Cli, GeneformerRunsOnTokenIdsFromAFile) {
  const auto ids = temp_file("cells.npy");
  std::vector<float> values;
  for (int cell = 0; cell < 3; ++cell)
    for (int t = 0; t < 40; ++t) values.push_back(t < 40 - 7 * cell ? 2.f + cell * 50 + t : 0.f);
  write_ids_npy(ids, values, 3);
  const auto f = temp_file("from_file.json");
  const Result r = run("run geneformer --size tiny --backend cpu --input " + ids.string() +
                       " --stages onnx-graph --max-time 1 --warmup 0.05 --min-samples 3 "
                       "--no-ceilings -q -o " +
                       f.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json doc = sb::read_document(f);
  EXPECT_EQ(doc["runs"][0]["params"]["batch"], 3);
  EXPECT_EQ(doc["runs"][0]["params"]["tokens"], 40);
  EXPECT_EQ(doc["runs"][0]["params"]["gene_tokens"], 40 + 33 + 26);
  EXPECT_EQ(run("run enformer --size tiny --input " + ids.string()).status, 2);
  std::filesystem::remove(ids);
  std::filesystem::remove(f);
}

// `--timeline`'s file against the run it came from: a valid trace, one sample per measured
// stage of every run, the host phases a training step marks, and on a device the commands of
// the captured sample adding up to a device time the stage recorded (the collectors read the
// same events).
void expect_timeline_of(const nlohmann::json& doc, const std::filesystem::path& trace_file) {
  std::ifstream in(trace_file);
  ASSERT_TRUE(in) << trace_file;
  const nlohmann::json trace = nlohmann::json::parse(in);
  const auto problems = sb::testing::trace_event_format_problems(trace);
  EXPECT_TRUE(problems.empty()) << problems.front();
  std::map<int, std::string> processes;
  for (const auto& e : trace["traceEvents"])
    if (e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
  for (const auto& run : doc["runs"]) {
    const std::string label =
        run["model"].get<std::string>() + "/tiny/" + run["backend"].get<std::string>();
    int pid = 0;
    for (const auto& [p, name] : processes)
      if (name == label) pid = p;
    ASSERT_NE(pid, 0) << label << " has no process in the trace";
    for (const auto& s : run["stages"]) {
      if (s["status"] == "skipped" || s["status"] == "failed") continue;
      const std::string id = s["id"];
      int samples = 0;
      double device_us = 0;
      std::set<std::string> phases;
      for (const auto& e : trace["traceEvents"]) {
        if (e["ph"] != "X" || e["pid"] != pid || e["args"]["stage"] != id) continue;
        if (e["cat"] == "sample") ++samples;
        if (e["cat"] == "device") device_us += e["dur"].get<double>();
        if (e["cat"] == "host") phases.insert(e["name"].get<std::string>());
      }
      EXPECT_EQ(samples, 1) << label << " " << id;
      if (s["throughput"]["item_name"] == "samples") {  // a training step, not the data phase
        for (const char* phase : {"data", "h2d", "forward", "loss", "backward", "optimizer"})
          EXPECT_TRUE(phases.count(phase)) << label << " " << id << " lacks " << phase;
      }
      if (!s["opencl"].is_object()) {
        EXPECT_EQ(device_us, 0) << label << " " << id;
        continue;
      }
      const auto& ms = s["opencl"]["device_ms"];
      if (ms["max"].get<double>() > 0) {
        EXPECT_GT(device_us, 0) << label << " " << id;
      }
      EXPECT_GE(device_us / 1e3, ms["min"].get<double>() * (1 - 1e-9)) << label << " " << id;
      EXPECT_LE(device_us / 1e3, ms["max"].get<double>() * (1 + 1e-9)) << label << " " << id;
    }
  }
}

// The training ladder end to end on every backend built here: mode train, every stage that runs
// passes its check (loss curve and final parameters, or the data phase's encoding), the phases
// and the memory split are recorded; and its timeline (expect_timeline_of).
TEST(Cli, DeepFmTinyTrainsEveryStageOnEveryBackend) {
  const auto f = temp_file("deepfm.json");
  const auto timeline = temp_file("deepfm.trace.json");
  const Result r =
      run("run deepfm --size tiny --backend all --max-time 3 --warmup 0.05 "
          "--min-samples 3 --noise 0.5 --no-ceilings -q -o " +
          f.string() + " --timeline " + timeline.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json doc = sb::read_document(f);
  ASSERT_GE(doc["runs"].size(), 1u);
  for (const auto& run : doc["runs"]) {
    EXPECT_EQ(run["mode"], "train");
    ASSERT_EQ(run["stages"].size(), 9u);
    int trained = 0;
    for (const auto& s : run["stages"]) {
      const std::string id = s["id"];
      if (s["status"] == "skipped") {
        EXPECT_FALSE(s["reason"].get<std::string>().empty()) << id;
        continue;
      }
      EXPECT_TRUE(s["correctness"]["pass"].get<bool>()) << run["backend"] << " " << s.dump();
      if (id == "preprocess" || id == "literal-strings") {
        EXPECT_EQ(s["throughput"]["item_name"], "rows");
        continue;
      }
      ++trained;
      EXPECT_EQ(s["throughput"]["item_name"], "samples");
      EXPECT_TRUE(s["correctness"]["loss_max_rel"].is_number()) << id;
      EXPECT_EQ(s["summaries"]["phases_ms"].size(), 5u) << id;
      EXPECT_TRUE(s["summaries"].contains("memory_split_bytes")) << id;
    }
    EXPECT_GE(trained, 4) << run["backend"];  // baseline, vectorized-fm, preallocated-loss, ...
  }
  // The data phase has its own baseline: preprocess starts it (nothing before it to compare
  // with), and literal-strings is compared with preprocess, not with a training step.
  const auto& stages = doc["runs"][0]["stages"];
  EXPECT_EQ(stages[7]["speedup"]["vs_previous"], nullptr);
  EXPECT_DOUBLE_EQ(stages[7]["speedup"]["vs_baseline"].get<double>(), 1.0);
  EXPECT_EQ(stages[8]["speedup"]["vs_previous"], stages[8]["speedup"]["vs_baseline"]);
  expect_timeline_of(doc, timeline);
  std::filesystem::remove(f);
  std::filesystem::remove(timeline);
}

TEST(Cli, DeepFmNamesAMalformedTableWithItsLine) {
  const auto tsv = temp_file("bad.tsv");
  {
    std::ofstream out(tsv);
    out << "drug\tgenalle\tgene\tallele\tphenotype_outcome\teffect_direction\teffect_type\n"
        << "a\tb\tc\td\tToxicity\tincreased\tefficacy\n"
        << "a\tb\tc\n";
  }
  const Result r = run("run deepfm --size tiny --data " + tsv.string() + " -q");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(tsv.filename().string()), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("line 3"), std::string::npos) << r.output;
  EXPECT_EQ(run("run deepfm --size tiny --data /nonexistent/table.tsv -q").status, 2);
  EXPECT_EQ(
      run("export-steps deepfm --size tiny --stage preprocess --out " + temp_file("steps").string())
          .status,
      2);
  std::filesystem::remove(tsv);
}

// `--batch auto` on every backend of the build (cpu, PoCL): every batch the search calls fitting
// was measured within the cap, the first that does not fit is over it, and the ladder ran at the
// throughput-best batch within the cap.
TEST(Cli, BatchAutoFindsTheLargestFittingAndTheBestBatchOnEveryBackend) {
  const auto f = temp_file("batch_auto.json");
  constexpr uint64_t kCap = 3 << 20;
  const Result r =
      run("run geneformer --size tiny --backend all --stages eager,onnx-graph "
          "--batch auto --memory-cap 3M --max-time 1 --warmup 0.05 --min-samples 3 "
          "--no-ceilings -o " +
          f.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("batch search geneformer/tiny/cpu"), std::string::npos) << r.output;
  const nlohmann::json doc = sb::read_document(f);
  ASSERT_GE(doc["runs"].size(), 1u);
  for (const auto& run : doc["runs"]) {
    const std::string backend = run["backend"];
    SCOPED_TRACE(backend);
    ASSERT_TRUE(run.contains("batch_search")) << run.dump().substr(0, 400);
    const auto& s = run["batch_search"];
    const std::string basis = backend == "cpu" ? "host_tensor_peak_bytes" : "device_peak_bytes";
    EXPECT_EQ(s["memory_basis"], basis);
    EXPECT_EQ(s["stage"], "onnx-graph");
    EXPECT_EQ(s["memory_cap_bytes"], kCap);
    const int64_t largest = s["largest_fitting"], first_out = s["first_not_fitting"];
    EXPECT_GE(largest, 2);
    EXPECT_EQ(first_out, largest + 1);
    bool saw_first_out = false;
    for (const auto& p : s["curve"]) {
      if (p["outcome"] == "fits") {
        EXPECT_LE(p["peak_bytes"].get<uint64_t>(), kCap) << p.dump();
        EXPECT_GT(p["items_per_s"].get<double>(), 0) << p.dump();
      }
      if (p["batch"] == first_out) {
        saw_first_out = true;
        EXPECT_GT(p["peak_bytes"].get<uint64_t>(), kCap) << p.dump();
      }
    }
    EXPECT_TRUE(saw_first_out);
    EXPECT_EQ(run["params"]["batch"], s["best_throughput"]);
    for (const auto& stage : run["stages"])
      EXPECT_LE(stage["memory"][basis].get<uint64_t>(), kCap) << stage["id"];
  }
  std::filesystem::remove(f);
}

}  // namespace cli
