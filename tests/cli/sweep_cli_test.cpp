// `stagebench sweep` and `merge` end to end on Enformer tiny (cpu): bad files are named, shards
// merge back into the unsharded sweep, a killed sweep keeps its finished jobs and --resume
// finishes the rest without running them again, Ctrl-C stops cleanly, --format gbench.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "harness/journal.h"
#include "harness/sweep_config.h"
#include "schema/document.h"
#include "tests/common/run_stagebench.h"
#include "tests/common/temp_dir.h"

namespace sweep_cli {

using nlohmann::json;
using sb::testing::TempDir;

using Result = sb::testing::CommandResult;

// One OpenMP thread: the tiny model on a loaded 2-core machine is many times faster so.
void single_thread() {
  setenv("OMP_NUM_THREADS", "1", 1);
}

Result run(const std::string& args) {
  single_thread();
  return sb::testing::run_stagebench(args);
}

// Starts stagebench in the background (the shell execs it, so the pid is stagebench's).
pid_t spawn(const std::string& args) {
  single_thread();
  const std::string cmd = "exec " + std::string(STAGEBENCH_BIN) + " " + args + " >/dev/null 2>&1";
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Polls until `ready` holds or the process ends; returns whether `ready` held.
template <typename Ready>
bool wait_for(pid_t pid, Ready ready) {
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < limit) {
    if (ready()) return true;
    int st = 0;
    if (waitpid(pid, &st, WNOHANG) == pid) return ready();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

size_t complete_runs(const std::filesystem::path& out) {
  std::error_code ec;
  if (!std::filesystem::exists(out, ec)) return 0;
  const json doc = sb::read_document(out);  // written atomically: always whole
  size_t n = 0;
  for (const auto& r : doc["runs"]) n += r.value("complete", false) ? 1 : 0;
  return n;
}

// Three jobs (batch 1, 2, 3). With `measure_s` > 0 each job measures that long (so that a kill
// lands between jobs, or an interrupt within one); otherwise a few rounds.
std::string sweep_file(double measure_s = 0) {
  const std::string runner =
      measure_s > 0 ? R"({"noise": 10, "min_samples": 100000, "max_samples": 100000, "warmup": 0,
                          "max_time": )" +
                          std::to_string(measure_s) + "}"
                    : R"({"noise": 10, "min_samples": 2, "max_samples": 3, "max_time": 0.5,
                          "warmup": 0})";
  return R"({"defaults": {"ceilings": false, "stages": ["fused-gelu"], "runner": )" + runner +
         R"(}, "entries": [{"models": "enformer", "sizes": "tiny", "backends": "cpu",
                             "batch": [1, 2, 3]}]})";
}

TEST(SweepCli, BadSweepFilesAreNamedWithTheField) {
  TempDir dir;
  const auto model = dir.write(
      "model.json",
      R"({"entries": [{"models": ["enformer", "nomodel"], "sizes": "tiny", "backends": "cpu"}]})");
  Result r = run("sweep " + model.string() + " -q -o " + dir.file("o.json").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(model.string() + ": entries[0].models: unknown model 'nomodel'"),
            std::string::npos)
      << r.output;

  const auto stage =
      dir.write("stage.json",
                R"({"entries": [{"models": "enformer", "sizes": "tiny", "backends": "cpu",
                       "stages": ["warp"]}]})");
  r = run("sweep " + stage.string() + " -q -o " + dir.file("o.json").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("entries[0].stages: enformer: unknown stage 'warp'"), std::string::npos)
      << r.output;

  r = run("sweep " + stage.string() + " --shard 2/2 -q -o " + dir.file("o.json").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir.file("o.json"))) << "nothing runs on bad input";
}

// `--journal result.json` appended the sweep's records to a result, `--journal sweep.json` to the
// sweep file, and `-o sweep.json` replaced the sweep file, each exiting 0 (issue 29). Each is
// refused (exit 2) before anything runs, and the file is left as it was.
TEST(SweepCli, AJournalOrOutputThatWouldDestroyAFileIsRefused) {
  TempDir dir;
  const std::string sweep = sweep_file();
  const auto cfg = dir.write("sweep.json", sweep);
  const std::string result = "{\n  \"context\": {},\n  \"runs\": []\n}\n";
  const auto res = dir.write("result.json", result);
  const std::string out = " -q -o " + dir.file("o.json").string();
  struct Case {
    std::string args, named;
  };
  for (const Case& c : {
           Case{out + " --journal " + res.string(),
                "result.json: exists and is not a sweep journal"},
           Case{out + " --journal " + res.string() + " --resume", "is not a sweep journal"},
           Case{out + " --journal " + res.string() + " --restart", "is not a sweep journal"},
           Case{out + " --journal " + cfg.string(), "is the sweep file itself"},
           Case{" -q -o " + cfg.string(), "sweep.json is the sweep file itself"},
           Case{" -q -o " + (dir.path() / "." / "sweep.json").string(), "is the sweep file itself"},
           Case{" -q -o " + res.string() + " --journal " + res.string(), "name one file"},
       }) {
    const Result r = run("sweep " + cfg.string() + c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.named), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_EQ(slurp(cfg), sweep) << c.args;
    EXPECT_EQ(slurp(res), result) << c.args;
    EXPECT_FALSE(std::filesystem::exists(dir.file("o.json"))) << c.args;
  }
}

TEST(SweepCli, ShardsMergeIntoTheUnshardedSweep) {
  TempDir dir;
  const auto cfg = dir.write("sweep.json", sweep_file());
  const std::string common = " -q --format json ";
  Result r = run("sweep " + cfg.string() + common + "-o " + dir.file("all.json").string());
  ASSERT_EQ(r.status, 0) << r.output;
  r = run("sweep " + cfg.string() + common + "--shard 0/2 -o " + dir.file("s0.json").string());
  ASSERT_EQ(r.status, 0) << r.output;
  r = run("sweep " + cfg.string() + common + "--shard 1/2 -o " + dir.file("s1.json").string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(sb::read_document(dir.file("s0.json"))["runs"].size(), 2u);
  EXPECT_EQ(sb::read_document(dir.file("s1.json"))["runs"].size(), 1u);

  r = run("merge " + dir.file("s1.json").string() + " " + dir.file("s0.json").string() +
          " --config " + cfg.string() + " -o " + dir.file("merged.json").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const json all = sb::read_document(dir.file("all.json"));
  const json merged = sb::read_document(dir.file("merged.json"));
  ASSERT_EQ(merged["runs"].size(), all["runs"].size());
  for (size_t i = 0; i < all["runs"].size(); ++i) {
    const json& a = all["runs"][i];
    const json& m = merged["runs"][i];
    EXPECT_EQ(m["job"]["key"], a["job"]["key"]) << "run " << i;
    ASSERT_EQ(m["stages"].size(), a["stages"].size());
    for (size_t s = 0; s < a["stages"].size(); ++s) {
      EXPECT_EQ(m["stages"][s]["id"], a["stages"][s]["id"]);
      EXPECT_EQ(m["stages"][s]["status"], a["stages"][s]["status"]);
    }
  }

  r = run("merge " + dir.file("s0.json").string() + " " + dir.file("s0.json").string() + " -o " +
          dir.file("dup.json").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("duplicate run"), std::string::npos) << r.output;

  r = run("merge " + dir.file("s0.json").string() + " " + dir.file("s1.json").string() +
          " --format gbench -o " + dir.file("g.json").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const json g = json::parse(slurp(dir.file("g.json")));
  EXPECT_EQ(g["benchmarks"].size(), 6u) << "3 runs x (original, fused-gelu)";
}

TEST(SweepCli, AKilledSweepKeepsItsFinishedJobsAndResumeRunsTheRest) {
  TempDir dir;
  const auto cfg = dir.write("sweep.json", sweep_file(0.8));
  const auto out = dir.file("out.json");
  const auto journal = dir.file("out.journal.jsonl");
  const pid_t pid = spawn("sweep " + cfg.string() + " -o " + out.string());
  ASSERT_GT(pid, 0);
  const bool first_done = wait_for(pid, [&] {
    return slurp(journal).find(R"("type":"complete")") != std::string::npos &&
           complete_runs(out) >= 1;
  });
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  ASSERT_TRUE(first_done) << slurp(journal);

  const size_t finished = complete_runs(out);  // read_document: a valid document
  ASSERT_GE(finished, 1u);
  ASSERT_LT(finished, 3u) << "the kill should land before the last job";

  const Result r = run("sweep " + cfg.string() + " --resume -q -o " + out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(std::to_string(finished) + " resumed from the journal"),
            std::string::npos)
      << r.output;
  const json doc = sb::read_document(out);
  ASSERT_EQ(doc["runs"].size(), 3u);
  const auto jobs = sb::read_sweep_file(cfg);
  const sb::JournalContents j = sb::read_journal(journal);
  EXPECT_EQ(j.starts.size(), 2u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(doc["runs"][i]["job"]["key"], sb::job_key(jobs[i]));
    EXPECT_EQ(doc["runs"][i]["complete"], true);
    EXPECT_EQ(doc["runs"][i]["stages"].size(), 2u);
    EXPECT_EQ(j.complete_count.at(sb::job_key(jobs[i])), 1u) << "job " << i << " ran once";
  }
}

TEST(SweepCli, InterruptStopsAtTheNextSnapshotWithAValidDocument) {
  TempDir dir;
  const auto cfg = dir.write("sweep.json", sweep_file(5));
  const auto out = dir.file("out.json");
  const auto journal = dir.file("out.journal.jsonl");
  const pid_t pid = spawn("sweep " + cfg.string() + " -o " + out.string());
  ASSERT_GT(pid, 0);
  const bool started = wait_for(
      pid, [&] { return slurp(journal).find(R"("type":"partial")") != std::string::npos; });
  kill(pid, SIGINT);
  int st = 0;
  waitpid(pid, &st, 0);
  ASSERT_TRUE(started);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 130);
  const json doc = sb::read_document(out);
  ASSERT_GE(doc["runs"].size(), 1u);
  EXPECT_EQ(doc["runs"].back()["complete"], false) << "the interrupted job's snapshot is kept";
  EXPECT_LT(complete_runs(out), 3u);
}

TEST(SweepCli, RunWritesGoogleBenchmarkJson) {
  TempDir dir;
  const auto out = dir.file("g.json");
  const Result r =
      run("run enformer --size tiny --backend cpu --stages fused-gelu --max-time 0.3 "
          "--warmup 0 --min-samples 2 --max-samples 3 --no-ceilings -q "
          "--format gbench -o " +
          out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const json g = json::parse(slurp(out));
  EXPECT_TRUE(g["context"]["host_name"].is_string());
  EXPECT_GE(g["context"]["num_cpus"].get<int>(), 1);
  ASSERT_EQ(g["benchmarks"].size(), 2u);
  EXPECT_EQ(g["benchmarks"][0]["name"], "enformer/tiny/cpu/original");
  EXPECT_EQ(g["benchmarks"][1]["name"], "enformer/tiny/cpu/fused-gelu");
  EXPECT_GT(g["benchmarks"][1]["real_time"].get<double>(), 0.0);
  EXPECT_EQ(g["benchmarks"][1]["time_unit"], "ms");
}

}  // namespace sweep_cli
