// The report and compare commands end to end: every exit code of compare (0 no regression,
// 1 regression, 2 invalid input or nothing comparable, 3 undecidable) and report's formats and
// errors.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "schema/document.h"
#include "tests/common/run_stagebench.h"
#include "tests/reports/fixture.h"

namespace compare_cli {

namespace fs = std::filesystem;

using Result = sb::testing::CommandResult;

Result run(const std::string& args) {
  return sb::testing::run_stagebench(args);
}

class CompareCli : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_);
    sb::write_json_atomic(file("base.json"), sb::test::fixture_document());
    sb::write_json_atomic(file("same.json"), sb::test::fixture_document());
    sb::write_json_atomic(file("slow.json"), sb::test::fixture_document({{"graph-compile", 1.10}}));
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name), std::ios::binary) << text;
    return file(name);
  }
  fs::path dir_ = fs::temp_directory_path() / ("sb_compare_cli_" + std::to_string(getpid()) + "_" +
                                               std::to_string(std::random_device{}()));
};

TEST_F(CompareCli, ExitZeroWhenNothingRegressed) {
  const std::string rules = write("rules.txt", "enformer/cpu/*/time: +5%\n");
  const Result r =
      run("compare " + file("base.json") + " " + file("same.json") + " --thresholds " + rules);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("result: no regression"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("SAME"), std::string::npos);
}

TEST_F(CompareCli, ExitOneOnARegressionWithTheRuleThatFired) {
  const std::string rules = write("rules.txt", "# gate\nenformer/cpu/*/time: +5%\n");
  const Result r = run("compare " + file("base.json") + " " + file("slow.json") + " -t " + rules);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("line 2: enformer/cpu/*/time: +5%"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("REGRESSION"), std::string::npos);
  // Without rules the slowdown is reported but does not fail the gate.
  EXPECT_EQ(run("compare " + file("base.json") + " " + file("slow.json")).status, 0);
}

TEST_F(CompareCli, ExitOneWhenAnOkStageFails) {
  auto doc = sb::test::fixture_document();
  doc["runs"][0]["stages"][1]["status"] = "failed";
  doc["runs"][0]["stages"][1]["reason"] = "prepare: boom";
  sb::write_json_atomic(file("failed.json"), doc);
  const Result r = run("compare " + file("base.json") + " " + file("failed.json"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("ok in base, failed in candidate"), std::string::npos) << r.output;
}

// A tiny run (4 samples a stage) and the same with one stage 3x slower, under a +10% time rule:
// the slow stage is a suspected regression (exit 1), never "no regression"; --allow-inconclusive
// passes it; the unchanged file alone is undecidable (exit 3) unless allowed.
TEST_F(CompareCli, FewSamplesNeverPassSilently) {
  sb::write_json_atomic(file("base4.json"), sb::test::fixture_document({}, 4));
  sb::write_json_atomic(file("slow4.json"),
                        sb::test::fixture_document({{"graph-compile", 3.0}}, 4));
  const std::string rules = write("rules.txt", "*/*/*/time: +10%\n");
  const std::string args =
      "compare " + file("base4.json") + " " + file("slow4.json") + " -t " + rules;
  const Result r = run(args);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("SLOWER? (suspected regression)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("result: SUSPECTED REGRESSION"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("comparisons undecidable: samples 4 vs 4 < min 5; rerun with at least 5 "
                          "samples per stage (stagebench run --min-samples 5"),
            std::string::npos)
      << r.output;
  const Result allowed = run(args + " --allow-inconclusive");
  EXPECT_EQ(allowed.status, 0) << allowed.output;
  EXPECT_NE(allowed.output.find("passed by policy inconclusive=pass"), std::string::npos)
      << allowed.output;

  const std::string same = "compare " + file("base4.json") + " " + file("base4.json") + " -t ";
  const Result undecidable = run(same + rules);
  EXPECT_EQ(undecidable.status, 3) << undecidable.output;
  EXPECT_NE(undecidable.output.find("result: UNDECIDABLE"), std::string::npos)
      << undecidable.output;
  EXPECT_EQ(run(same + rules + " --allow-inconclusive").status, 0);
  EXPECT_EQ(run(same + write("pass.txt", "*/*/*/time: +10%\npolicy: inconclusive=pass\n")).status,
            0);
  EXPECT_EQ(run(same + write("fail.txt", "*/*/*/time: +10%\npolicy: inconclusive=fail\n")).status,
            1);
  // The slow file under a file policy of pass, and JSON output naming the outcome.
  const Result j = run(args + " --format json");
  EXPECT_EQ(j.status, 1);
  const nlohmann::json doc = nlohmann::json::parse(
      j.output.substr(j.output.find('{'), j.output.rfind('}') - j.output.find('{') + 1));
  EXPECT_EQ(doc["outcome"], "regression");
  EXPECT_EQ(doc["suspected"], 2);
  EXPECT_FALSE(doc["regression"].get<bool>());
}

TEST_F(CompareCli, JsonFormat) {
  const Result r = run("compare " + file("base.json") + " " + file("same.json") + " --format json");
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["schema"], "stagebench-compare/1");
  EXPECT_FALSE(j["regression"].get<bool>());
  EXPECT_GT(j["rows"].size(), 20u);
}

TEST_F(CompareCli, ExitTwoOnInvalidInput) {
  struct Case {
    std::string args, needle;
  };
  const std::string base = file("base.json");
  const std::string truncated =
      write("truncated.json", "{\"schema\": \"stagebench/1\", \"runs\": [");
  const std::string wrong =
      write("wrong.json", R"({"schema": "other/2", "context": {}, "runs": []})");
  const std::string huge =
      write("huge.json", R"({"schema": "stagebench/1", "context": {}, "runs": [1e400]})");
  const std::string bad_rules =
      write("bad.txt", "enformer/cpu/*/time: +5%\nenformer/cpu/time: 5%\n");
  auto other = sb::test::fixture_document();
  for (auto& run : other["runs"]) run["model"] = "other";
  sb::write_json_atomic(file("other.json"), other);
  for (const Case& c : {
           Case{"compare " + base + " " + truncated, "truncated.json: not valid JSON at line 1"},
           Case{"compare " + wrong + " " + base, "wrong.json: not a stagebench/1 document"},
           Case{"compare " + base + " " + huge, "huge.json"},
           Case{"compare " + base + " /nonexistent/c.json", "/nonexistent/c.json"},
           Case{"compare " + base + " " + base + " -t " + bad_rules, "bad.txt: thresholds line 2"},
           Case{"compare " + base + " " + file("other.json"), "nothing comparable"},
           Case{"compare " + base + " " + base + " --alpha 7", "alpha"},
           Case{"compare " + base + " " + base + " --format xml", "format"},
       }) {
    const Result r = run(c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.needle), std::string::npos) << c.args << "\n" << r.output;
  }
}

TEST_F(CompareCli, ReportFormatsAndOutputFile) {
  const Result md = run("report " + file("base.json"));
  ASSERT_EQ(md.status, 0) << md.output;
  EXPECT_NE(md.output.find("| # | stage"), std::string::npos) << md.output;
  EXPECT_EQ(run("report " + file("base.json") + " --format csv -o " + file("r.csv")).status, 0);
  std::ifstream csv(file("r.csv"));
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header.rfind("file,model,size,backend,device,mode,stage_index,stage,", 0), 0u)
      << header;
  EXPECT_EQ(
      run("report " + file("base.json") + " " + file("slow.json") + " -f html -o " + file("r.html"))
          .status,
      0);
  EXPECT_GT(fs::file_size(file("r.html")), 10000u);
  const Result bad = run("report " + write("bad.json", "[1, 2") + " -f html");
  EXPECT_EQ(bad.status, 2) << bad.output;
  EXPECT_NE(bad.output.find("bad.json"), std::string::npos) << bad.output;
  EXPECT_EQ(run("report " + file("base.json") + " --format pdf").status, 2);
}

}  // namespace compare_cli
