// run_sweep with a fake executor: the output is rewritten after every job from the journal, a
// cancel keeps the snapshot, resume runs only what is missing, and a journal is never
// discarded silently.
#include <gtest/gtest.h>

#include <atomic>

#include "harness/journal.h"
#include "harness/sweep_runner.h"
#include "schema/document.h"
#include "tests/common/temp_dir.h"

namespace sb {
namespace {

using nlohmann::json;

std::vector<SweepJob> three_jobs() {
  return expand_sweep(json::parse(R"({"entries": [
      {"models": "m", "sizes": "tiny", "backends": "cpu", "batch": [1, 2, 3]}]})"),
                      "s.json");
}

json fake_run(const SweepJob& job, bool complete) {
  return {{"model", job.model},   {"size", job.size},       {"backend", job.backend},
          {"device", "fake"},     {"mode", "inference"},    {"params", {{"batch", job.batch}}},
          {"complete", complete}, {"stages", json::array()}};
}

struct Fixture {
  testing::TempDir dir;
  SweepSession session;
  std::vector<int64_t> ran;  // batches the executor was called for
  Fixture() {
    session.jobs = three_jobs();
    session.output = dir.file("out.json");
    session.journal = dir.file("out.journal.jsonl");
    session.quiet = true;
  }
  JobExecutor executor() {
    return [this](const SweepJob& job, const JobHooks&) {
      ran.push_back(job.batch);
      return fake_run(job, true);
    };
  }
};

TEST(SweepRunner, RunsEveryJobAndWritesAValidDocumentInJobOrder) {
  Fixture f;
  const SweepOutcome out = run_sweep(f.session, f.executor());
  EXPECT_EQ(f.ran, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(out.ran, 3u);
  const json doc = read_document(f.session.output);
  ASSERT_EQ(doc["runs"].size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(doc["runs"][i]["job"]["key"], job_key(f.session.jobs[i]));
    EXPECT_EQ(doc["runs"][i]["job"]["index"], i);
  }
  const JournalContents j = read_journal(f.session.journal);
  EXPECT_EQ(j.complete.size(), 3u);
  EXPECT_EQ(j.starts.size(), 1u);
}

TEST(SweepRunner, CancelKeepsTheSnapshotAndResumeRunsOnlyWhatIsMissing) {
  Fixture f;
  std::atomic<bool> cancel{false};
  f.session.cancel = &cancel;
  // Job 2 is stopped mid-way: its snapshot reaches the journal before the ladder ends.
  const SweepOutcome first = run_sweep(f.session, [&](const SweepJob& job, const JobHooks& hooks) {
    f.ran.push_back(job.batch);
    if (job.batch == 2) {
      cancel = true;
      hooks.partial(fake_run(job, false));
      ADD_FAILURE() << "partial() must throw once the sweep is cancelled";
    }
    return fake_run(job, true);
  });
  EXPECT_TRUE(first.cancelled);
  EXPECT_EQ(f.ran, (std::vector<int64_t>{1, 2}));
  json doc = read_document(f.session.output);
  ASSERT_EQ(doc["runs"].size(), 2u) << "job 1 complete, job 2's snapshot";
  EXPECT_EQ(doc["runs"][0]["complete"], true);
  EXPECT_EQ(doc["runs"][1]["complete"], false);

  f.ran.clear();
  cancel = false;
  f.session.mode = JournalMode::kResume;
  const SweepOutcome second = run_sweep(f.session, f.executor());
  EXPECT_FALSE(second.cancelled);
  EXPECT_EQ(second.resumed, 1u);
  EXPECT_EQ(f.ran, (std::vector<int64_t>{2, 3})) << "the finished job is not run again";
  doc = read_document(f.session.output);
  ASSERT_EQ(doc["runs"].size(), 3u);
  for (const auto& run : doc["runs"]) EXPECT_EQ(run["complete"], true);
  const JournalContents j = read_journal(f.session.journal);
  for (const auto& job : f.session.jobs) EXPECT_EQ(j.complete_count.at(job_key(job)), 1u);
  EXPECT_EQ(j.starts.size(), 2u);
}

TEST(SweepRunner, AnExistingJournalIsNotDiscardedWithoutBeingAsked) {
  Fixture f;
  run_sweep(f.session, f.executor());
  try {
    run_sweep(f.session, f.executor());
    FAIL() << "a second fresh sweep over the same journal must be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--resume"), std::string::npos) << e.what();
  }
  f.ran.clear();
  f.session.mode = JournalMode::kRestart;
  run_sweep(f.session, f.executor());
  EXPECT_EQ(f.ran.size(), 3u);
  EXPECT_EQ(read_journal(f.session.journal).starts.size(), 1u) << "restart discards the journal";
}

TEST(SweepRunner, AThrowingJobIsRecordedAsFailedAndRetriedOnResume) {
  Fixture f;
  const SweepOutcome out = run_sweep(f.session, [&](const SweepJob& job, const JobHooks&) {
    if (job.batch == 2) throw std::runtime_error("device lost");
    return fake_run(job, true);
  });
  EXPECT_EQ(out.failed, 1u);
  json doc = read_document(f.session.output);
  ASSERT_EQ(doc["runs"].size(), 3u);
  EXPECT_EQ(doc["runs"][1]["status"], "failed");
  EXPECT_EQ(doc["runs"][1]["reason"], "device lost");

  f.session.mode = JournalMode::kResume;
  run_sweep(f.session, f.executor());
  EXPECT_EQ(f.ran, (std::vector<int64_t>{2}));
  doc = read_document(f.session.output);
  EXPECT_FALSE(doc["runs"][1].contains("status"));
}

}  // namespace
}  // namespace sb
