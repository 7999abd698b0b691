// The Slurm side of sweeps without a Slurm: the array and merge scripts against committed golden
// text, the "slurm" block of a sweep file and its refusals, and the parsers of sbatch, squeue and
// sacct output.
#include <gtest/gtest.h>

#include "harness/slurm_commands.h"
#include "harness/slurm_config.h"
#include "harness/slurm_script.h"
#include "harness/sweep_config.h"
#include "tests/common/golden.h"

namespace {

using nlohmann::json;

sb::SlurmScriptSpec spec() {
  sb::SlurmScriptSpec s;
  s.layout.folder = "/scratch/me/nightly";
  s.name = "nightly-gpu";
  s.stagebench = "/opt/stagebench/bin/stagebench";
  s.workdir = "/home/me/bench";
  s.shards = 4;
  s.array = {0, 1, 2, 3};
  s.resources.partition = "gpu";
  s.resources.time = "01:30:00";
  s.resources.gpus_per_job = 1;
  s.resources.cpus_per_job = 8;
  s.resources.mem = "32G";
  s.resources.extra = {"--account=proj42"};
  return s;
}

TEST(SlurmScript, ArrayScriptIsTheGoldenText) {
  sb::testing::expect_golden_file(SB_SWEEP_TEST_DIR "/golden/shards.sbatch",
                                  sb::array_script(spec()));
}

TEST(SlurmScript, MergeScriptIsTheGoldenText) {
  sb::testing::expect_golden_file(SB_SWEEP_TEST_DIR "/golden/merge.sbatch",
                                  sb::merge_script(spec()));
}

TEST(SlurmScript, ResubmissionRunsTheUnfinishedShardsOnly) {
  sb::SlurmScriptSpec s = spec();
  s.array = {1, 3};
  const std::string text = sb::array_script(s);
  EXPECT_NE(text.find("#SBATCH --array=1,3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("--shard \"$i/4\" --resume"), std::string::npos) << text;
}

TEST(SlurmScript, NoResourcesNoLines) {
  sb::SlurmScriptSpec s = spec();
  s.resources = {};
  const std::string text = sb::array_script(s);
  for (const char* absent : {"--partition", "--time", "--gres", "--cpus-per-task", "--mem"})
    EXPECT_EQ(text.find(absent), std::string::npos) << absent << '\n' << text;
}

TEST(SlurmScript, ArrayRangesAndQuoting) {
  EXPECT_EQ(sb::array_ranges({0, 1, 2}), "0-2");
  EXPECT_EQ(sb::array_ranges({0, 2, 3, 4, 7}), "0,2-4,7");
  EXPECT_EQ(sb::array_ranges({5}), "5");
  EXPECT_EQ(sb::shell_quote("it's"), "'it'\\''s'");
}

TEST(SlurmConfig, ReadsTheSlurmBlock) {
  const json doc = json::parse(R"({"entries": [], "slurm": {"partition": "a100", "time": "30",
      "gpus_per_job": 2, "cpus_per_job": 16, "mem": "64G", "shards": 8,
      "extra": ["--qos=high", "--constraint=h100"]}})");
  const sb::SlurmResources r = sb::read_slurm_section(doc, "s.json");
  EXPECT_EQ(r.partition, "a100");
  EXPECT_EQ(r.time, "30");
  EXPECT_EQ(r.gpus_per_job, 2);
  EXPECT_EQ(r.cpus_per_job, 16);
  EXPECT_EQ(r.mem, "64G");
  EXPECT_EQ(r.shards, 8);
  EXPECT_EQ(r.extra, (std::vector<std::string>{"--qos=high", "--constraint=h100"}));
  EXPECT_EQ(sb::read_slurm_section(json::parse(R"({"entries": []})"), "s.json").shards, 0);
}

TEST(SlurmConfig, RefusesWhatWouldBreakTheScript) {
  const auto error = [](const std::string& slurm) {
    try {
      sb::read_slurm_section(json::parse(R"({"slurm": )" + slurm + "}"), "s.json");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error(R"({"partition": "gpu\n#SBATCH --x"})").rfind("s.json: slurm.partition", 0), 0u);
  EXPECT_NE(error(R"({"time": "1 hour"})").find("slurm.time"), std::string::npos);
  EXPECT_NE(error(R"({"gpus": 1})").find("slurm.gpus: unknown key"), std::string::npos);
  EXPECT_NE(error(R"({"gpus_per_job": -1})").find("must be in 0.."), std::string::npos);
  EXPECT_NE(error(R"({"extra": ["-A x"]})").find("slurm.extra[0]"), std::string::npos);
  EXPECT_NE(error(R"({"mem": "lots"})").find("slurm.mem"), std::string::npos);
  EXPECT_NE(error(R"([1])").find("expected an object"), std::string::npos);
}

// sbatch(1)'s forms are accepted; "-5", "-1:00:00" and ":::" used to pass the character check.
TEST(SlurmConfig, TimesFollowSbatchsGrammar) {
  const auto accepted = [](const std::string& time) {
    try {
      sb::read_slurm_section(json::parse(R"({"slurm": {"time": ")" + time + R"("}})"), "s.json");
      return true;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("s.json: slurm.time: '" + time + "'"), std::string::npos)
          << e.what();
      return false;
    }
  };
  for (const std::string t :
       {"90", "1:30", "01:30:00", "1-00", "2-12:30", "1-00:00:00", "UNLIMITED"})
    EXPECT_TRUE(accepted(t)) << t;
  for (const std::string t : {"-5", "-1:00:00", ":::", "1:", ":30", "1:2:3:4", "1-", "-", "1--2",
                              "1-2-3", "1-2:3:4:5", "9999999999"})
    EXPECT_FALSE(accepted(t)) << t;
}

TEST(SlurmConfig, TheSweepFileAcceptsTheBlockAndKeysIgnoreIt) {
  const json base =
      json::parse(R"({"entries": [{"models": "enformer", "sizes": "tiny", "backends": "cpu"}]})");
  json with = base;
  with["slurm"] = {{"partition", "gpu"}};
  EXPECT_EQ(sb::job_key(sb::expand_sweep(base, "a").at(0)),
            sb::job_key(sb::expand_sweep(with, "b").at(0)));
}

TEST(SlurmCommands, ParsesSbatchSqueueAndSacct) {
  EXPECT_EQ(sb::parse_sbatch_id("4242\n"), "4242");
  EXPECT_EQ(sb::parse_sbatch_id("4242;cluster\n"), "4242");
  EXPECT_THROW(sb::parse_sbatch_id("sbatch: error: Batch job submission failed\n"),
               std::runtime_error);

  const sb::SchedulerStates q =
      sb::parse_squeue("12_0|RUNNING|None\n12_1|PENDING|Resources\n13|PENDING|Dependency\n\n");
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q.at("12_0").state, "RUNNING");
  EXPECT_EQ(q.at("12_1").reason, "Resources");
  EXPECT_EQ(q.at("13").reason, "Dependency");

  const sb::SchedulerStates a = sb::parse_sacct(
      "12_0|COMPLETED|0:0\n12_1|CANCELLED by 0|0:15\n12_[2-4,7%2]|PENDING|0:0\n13|FAILED|1:0\n");
  EXPECT_EQ(a.at("12_0").state, "COMPLETED");
  EXPECT_EQ(a.at("12_1").state, "CANCELLED");
  for (const char* t : {"12_2", "12_3", "12_4", "12_7"}) EXPECT_EQ(a.at(t).state, "PENDING") << t;
  EXPECT_EQ(a.count("12_5"), 0u);
  EXPECT_EQ(a.at("13").state, "FAILED");
}

TEST(SlurmCommands, FindsProgramsOnPathAndRunsThem) {
  EXPECT_TRUE(sb::find_on_path("sh"));
  EXPECT_FALSE(sb::find_on_path("no-such-program-stagebench"));
  EXPECT_THROW(sb::require_on_path("no-such-program-stagebench"), std::invalid_argument);
  const sb::CommandOutput r = sb::run_command({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  const sb::CommandOutput slow = sb::run_command({"sh", "-c", "sleep 30"}, std::chrono::seconds(1));
  EXPECT_TRUE(slow.timed_out);
}

}  // namespace
