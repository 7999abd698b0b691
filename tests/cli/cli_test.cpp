// The stagebench binary end to end: bad input exits 2 with a message naming the problem, and a
// tiny run writes a valid stagebench/1 document with every requested stage.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <random>

#include "harness/result_json.h"
#include "tests/common/run_stagebench.h"

namespace {

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

TEST(Cli, GeneformerTinyRunRecordsItsSummaries) {
  const auto f = temp_file("geneformer.json");
  const Result r =
      run("run geneformer --size tiny --backend cpu --stages onnx-graph engine-int8 --max-time 2 "
          "--warmup 0.05 --min-samples 3 --no-ceilings -q -o " +
          f.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json doc = sb::read_document(f);
  const auto& stages = doc["runs"][0]["stages"];
  ASSERT_EQ(stages.size(), 3u);
  EXPECT_EQ(stages[0]["id"], "eager");
  EXPECT_EQ(stages[1]["summaries"]["graph"]["passes"].size(), 5u);
  EXPECT_EQ(stages[2]["summaries"]["calibration"]["batches"], 4);
  EXPECT_EQ(stages[2]["throughput"]["item_name"], "cells");
  for (const auto& s : stages) EXPECT_TRUE(s["correctness"]["pass"].get<bool>()) << s.dump();
  std::filesystem::remove(f);
}

TEST(Cli, GeneformerInferNamesABadTokenId) {
  const auto ids = temp_file("ids.npy");
  FILE* out = std::fopen(ids.c_str(), "wb");  // a 1 x 3 float32 .npy holding id 99999
  ASSERT_NE(out, nullptr);
  const std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }";
  std::string h = header + std::string(118 - header.size() - 1, ' ') + "\n";
  std::fwrite("\x93NUMPY\x01\x00", 1, 8, out);
  const uint16_t len = static_cast<uint16_t>(h.size());
  std::fwrite(&len, 2, 1, out);
  std::fwrite(h.data(), 1, h.size(), out);
  const float values[3] = {5.f, 99999.f, 0.f};
  std::fwrite(values, 4, 3, out);
  std::fclose(out);
  const Result r = run("infer geneformer --size tiny --input " + ids.string() + " --output " +
                       temp_file("o.safetensors").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("99999"), std::string::npos) << r.output;
  std::filesystem::remove(ids);
}

}  // namespace
