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
        Case{"report /nonexistent/file.json", "nonexistent"}}) {
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

}  // namespace
