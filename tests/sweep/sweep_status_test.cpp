// `stagebench sweep --status`'s reading of a Slurm folder: per shard, jobs complete, partial and
// failed from the journals, combined with squeue's and sacct's answers into done, queued,
// running, failed; and the text that names the shards that never finished.
#include <gtest/gtest.h>

#include <sstream>

#include "harness/journal.h"
#include "harness/sweep_runner.h"
#include "harness/sweep_status.h"
#include "tests/common/temp_dir.h"

namespace {

using nlohmann::json;

// Six jobs (batch 1..6) in three shards: shard i holds jobs i and i + 3.
struct Folder {
  sb::testing::TempDir dir{"sb_slurm_status_"};
  sb::SlurmLayout layout{dir.path()};
  std::vector<sb::SweepJob> jobs;
  sb::SlurmState state;

  Folder() {
    const json sweep = json::parse(R"({"entries": [{"models": "enformer", "sizes": "tiny",
        "backends": "cpu", "batch": [1, 2, 3, 4, 5, 6]}]})");
    jobs = sb::expand_sweep(sweep, "sweep.json");
    for (const auto& j : jobs) state.jobs.push_back(sb::job_key(j));
    state.shards = 3;
  }

  // Appends a journal record of job j to its shard's journal.
  void record(size_t j, const std::string& type) const {
    sb::JournalWriter w(layout.shard_journal(j % 3));
    if (type == "start") {
      w.append({{"type", "start"}, {"shard", std::to_string(j % 3) + "/3"}});
      return;
    }
    json run = sb::stub_run(jobs[j], "skipped", "test");
    if (type != "failed") {  // a run that measured something, finished or not
      run.erase("status");
      run.erase("reason");
      run["complete"] = type == "complete";
    }
    w.append({{"type", type}, {"key", state.jobs[j]}, {"run", run}});
  }
};

TEST(SweepStatus, JournalsAloneTellDoneFromFailedAndNotSubmitted) {
  Folder f;
  for (size_t j : {0, 3}) f.record(j, "complete");  // shard 0: both jobs
  f.record(1, "start");
  f.record(1, "complete");
  f.record(4, "partial");  // shard 1: cancelled mid-way
  // shard 2: never started
  const sb::SweepStatus s = sb::sweep_status(f.layout, f.state, {}, {});
  ASSERT_EQ(s.shards.size(), 3u);
  EXPECT_EQ(s.shards[0].state, "done");
  EXPECT_EQ(s.shards[0].complete, 2u);
  EXPECT_EQ(s.shards[1].state, "failed");
  EXPECT_EQ(s.shards[1].complete, 1u);
  EXPECT_EQ(s.shards[1].partial, 1u);
  ASSERT_EQ(s.shards[1].unfinished.size(), 1u);
  EXPECT_EQ(s.shards[1].unfinished[0], f.state.jobs[4] + " (partial)");
  EXPECT_EQ(s.shards[2].state, "not submitted");
  EXPECT_FALSE(s.complete());
}

TEST(SweepStatus, TheSchedulerSaysQueuedRunningAndHowTasksEnded) {
  Folder f;
  f.state.submissions.push_back({"2026-01-01T00:00:00Z", {0, 1, 2}, "40", "41"});
  f.record(0, "complete");
  f.record(3, "complete");
  f.record(1, "partial");
  f.record(2, "failed");
  f.record(5, "complete");
  const sb::SchedulerStates queue = sb::parse_squeue("40_1|RUNNING|None\n41|PENDING|Dependency\n");
  const sb::SchedulerStates accounting =
      sb::parse_sacct("40_0|COMPLETED|0:0\n40_2|COMPLETED|0:0\n");
  const sb::SweepStatus s = sb::sweep_status(f.layout, f.state, queue, accounting);
  EXPECT_EQ(s.shards[0].state, "done");
  EXPECT_EQ(s.shards[0].task, "40_0");
  EXPECT_EQ(s.shards[1].state, "running");
  // The task ended, but a job of it failed: the shard is not done and will not finish by itself.
  EXPECT_EQ(s.shards[2].state, "failed");
  EXPECT_EQ(s.shards[2].failed, 1u);
  ASSERT_TRUE(s.shards[2].scheduler);
  EXPECT_EQ(s.shards[2].scheduler->state, "COMPLETED");
  EXPECT_EQ(s.merge_job, "41");
  ASSERT_TRUE(s.merge_state);
  EXPECT_EQ(s.merge_state->reason, "Dependency");

  std::ostringstream text;
  sb::print_status(text, "F", s);
  const std::string t = text.str();
  EXPECT_NE(t.find("6 jobs in 3 shards; 3 complete, 1 partial, 1 failed, 1 not started"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("40_1 RUNNING"), std::string::npos) << t;
  EXPECT_NE(t.find("merge job 41: PENDING (Dependency)"), std::string::npos) << t;
  EXPECT_NE(t.find("shards: 1 done, 0 queued, 1 running, 1 failed, 0 not submitted"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("never finished: shard 2 (task 40_2): " + f.state.jobs[2] + " (failed)"),
            std::string::npos)
      << t;
}

TEST(SweepStatus, ALaterSubmissionNamesTheShardsTask) {
  Folder f;
  f.state.submissions.push_back({"d1", {0, 1, 2}, "40", "41"});
  f.state.submissions.push_back({"d2", {1}, "50", "51"});
  f.record(1, "partial");
  const sb::SweepStatus s =
      sb::sweep_status(f.layout, f.state, sb::parse_squeue("50_1|PENDING|Priority\n"), {});
  EXPECT_EQ(s.shards[0].task, "40_0");
  EXPECT_EQ(s.shards[1].task, "50_1");
  EXPECT_EQ(s.shards[1].state, "queued");
  EXPECT_EQ(s.merge_job, "51");
}

TEST(SweepStatus, StateFileRoundTripsAndIsChecked) {
  Folder f;
  f.state.submissions.push_back({"d1", {0, 2}, "40", "41"});
  std::ofstream(f.layout.state()) << sb::to_json(f.state).dump();
  const sb::SlurmState back = sb::read_slurm_state(f.layout.state());
  EXPECT_EQ(back.shards, 3u);
  EXPECT_EQ(back.jobs, f.state.jobs);
  ASSERT_EQ(back.submissions.size(), 1u);
  EXPECT_EQ(back.submissions[0].shards, (std::vector<size_t>{0, 2}));
  EXPECT_EQ(back.submissions[0].merge_job, "41");

  std::ofstream(f.layout.state()) << R"({"format": "stagebench-slurm/1", "shards": "x"})";
  EXPECT_THROW(sb::read_slurm_state(f.layout.state()), std::invalid_argument);
  EXPECT_THROW(sb::read_slurm_state(f.dir.file("nowhere/slurm.json")), std::invalid_argument);
}

TEST(SweepStatus, ActiveStatesAreQueuedOrRunning) {
  for (const char* s : {"PENDING", "RUNNING", "COMPLETING", "REQUEUED", "SUSPENDED"})
    EXPECT_TRUE(sb::scheduler_active(s)) << s;
  for (const char* s : {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "PREEMPTED", ""})
    EXPECT_FALSE(sb::scheduler_active(s)) << s;
}

TEST(SweepStatus, ShardKeysFollowTheModulo) {
  const auto s = sb::shard_keys({"a", "b", "c", "d", "e"}, 2);
  EXPECT_EQ(s[0], (std::vector<std::string>{"a", "c", "e"}));
  EXPECT_EQ(s[1], (std::vector<std::string>{"b", "d"}));
}

}  // namespace
