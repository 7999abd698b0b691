// run_sweep with a fake executor: the output is rewritten after every job from the journal, a
// cancel keeps the snapshot, resume runs only what is missing, and a journal is never
// discarded silently.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <sstream>

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
  const SweepOutcome resumed = run_sweep(f.session, f.executor());
  // The sweep's own "failed" record used to be warned about as an "unknown or incomplete record".
  EXPECT_TRUE(resumed.warnings.empty()) << resumed.warnings.front();
  EXPECT_EQ(f.ran, (std::vector<int64_t>{2}));
  doc = read_document(f.session.output);
  EXPECT_FALSE(doc["runs"][1].contains("status"));
}

// Until it is measured again, a failed job's stub stays in the output of a resumed sweep (a
// resume interrupted before reaching it must not lose the record of the failure).
TEST(SweepRunner, AResumedSweepShowsTheFailedJobUntilItRunsAgain) {
  Fixture f;
  run_sweep(f.session, [&](const SweepJob& job, const JobHooks&) {
    if (job.batch == 1) throw std::runtime_error("device lost");
    return fake_run(job, true);
  });
  std::atomic<bool> cancel{true};  // stops before the first job
  f.session.cancel = &cancel;
  f.session.mode = JournalMode::kResume;
  const SweepOutcome out = run_sweep(f.session, f.executor());
  EXPECT_TRUE(out.cancelled);
  const json doc = read_document(f.session.output);
  ASSERT_EQ(doc["runs"].size(), 3u);
  EXPECT_EQ(doc["runs"][0]["status"], "failed");
}

// The journal of one sweep, then a sweep file whose jobs are others (batch 4, 5, 6).
std::vector<SweepJob> other_jobs() {
  return expand_sweep(json::parse(R"({"entries": [
      {"models": "m", "sizes": "tiny", "backends": "cpu", "batch": [4, 5, 6]}]})"),
                      "other.json");
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// `--journal result.json` appended records to the result (and `--journal sweep.json` to the
// sweep file) and exited 0 (issue 29): a file that is not a journal is refused in every mode,
// unchanged, before any job runs.
TEST(SweepRunner, AFileThatIsNotAJournalIsRefusedAndLeftAlone) {
  for (const JournalMode mode : {JournalMode::kNew, JournalMode::kResume, JournalMode::kRestart}) {
    Fixture f;
    const std::string result = "{\n  \"context\": {},\n  \"runs\": []\n}\n";
    f.session.journal = f.dir.write("result.json", result);
    f.session.mode = mode;
    try {
      run_sweep(f.session, f.executor());
      ADD_FAILURE() << "a result file was taken for a journal";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("result.json: exists and is not a sweep journal"),
                std::string::npos)
          << e.what();
    }
    EXPECT_EQ(slurp(f.session.journal), result);
    EXPECT_TRUE(f.ran.empty());
  }
  // An empty file is a new journal.
  Fixture f;
  f.session.journal = f.dir.write("empty.jsonl", "");
  EXPECT_NO_THROW(run_sweep(f.session, f.executor()));
  EXPECT_EQ(f.ran.size(), 3u);
}

TEST(SweepRunner, AnotherSweepsJournalIsRefusedButAnEditedSweepFileIsNot) {
  Fixture f;
  f.session.config = f.dir.write("s.json", "{}");
  run_sweep(f.session, f.executor());
  const std::string journal = slurp(f.session.journal);

  f.ran.clear();
  f.session.jobs = other_jobs();
  f.session.config = f.dir.write("other.json", "{}");
  for (const JournalMode mode : {JournalMode::kResume, JournalMode::kRestart}) {
    f.session.mode = mode;
    try {
      run_sweep(f.session, f.executor());
      ADD_FAILURE() << "another sweep's journal was taken";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("the journal of another sweep"), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(slurp(f.session.journal), journal);
    EXPECT_TRUE(f.ran.empty());
  }
  // The same sweep file with every job edited: its journal still, its runs left out.
  f.session.config = f.dir.file("s.json");
  f.session.mode = JournalMode::kResume;
  const SweepOutcome out = run_sweep(f.session, f.executor());
  EXPECT_EQ(f.ran, (std::vector<int64_t>{4, 5, 6}));
  ASSERT_FALSE(out.warnings.empty());
  EXPECT_NE(out.warnings.back().find("3 complete jobs are not jobs of this sweep"),
            std::string::npos)
      << out.warnings.back();
}

// Records whose run is not their job's were taken as done (issue 29): another model's run under
// a key, two jobs' runs swapped, a run that never finished in a "complete" record. Each is
// skipped naming its line, and its job measured again.
TEST(SweepRunner, ARecordIsUsedOnlyForItsOwnJobsCompleteRun) {
  Fixture f;
  run_sweep(f.session, f.executor());
  std::vector<json> records;
  {
    std::istringstream in(slurp(f.session.journal));
    for (std::string line; std::getline(in, line);) records.push_back(json::parse(line));
  }
  ASSERT_EQ(records.size(), 4u);  // start, three complete
  records[1]["run"]["model"] = "geneformer";
  std::swap(records[2]["run"], records[3]["run"]);
  {
    std::ofstream out(f.session.journal, std::ios::trunc);
    for (const auto& r : records) out << r.dump() << '\n';
  }
  f.ran.clear();
  f.session.mode = JournalMode::kResume;
  SweepOutcome out = run_sweep(f.session, f.executor());
  EXPECT_EQ(out.resumed, 0u);
  EXPECT_EQ(f.ran, (std::vector<int64_t>{1, 2, 3}));
  ASSERT_EQ(out.warnings.size(), 3u);
  EXPECT_NE(out.warnings[0].find(":2: complete record of " + job_key(f.session.jobs[0]) +
                                 " is a run of model geneformer, not the job's m"),
            std::string::npos)
      << out.warnings[0];
  EXPECT_NE(out.warnings[1].find("holds the run of job " + job_key(f.session.jobs[2])),
            std::string::npos)
      << out.warnings[1];
  const json doc = read_document(f.session.output);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(doc["runs"][i]["params"]["batch"], i + 1);

  // A "complete" record of an unfinished run.
  Fixture g;
  run_sweep(g.session, g.executor());
  std::string text = slurp(g.session.journal);
  const size_t at = text.find("\"complete\":true");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 15, "\"complete\":false");
  std::ofstream(g.session.journal, std::ios::trunc) << text;
  g.ran.clear();
  g.session.mode = JournalMode::kResume;
  out = run_sweep(g.session, g.executor());
  EXPECT_EQ(g.ran, (std::vector<int64_t>{1}));
  ASSERT_EQ(out.warnings.size(), 1u);
  EXPECT_NE(out.warnings[0].find("holds a run whose \"complete\" is false, not true"),
            std::string::npos)
      << out.warnings[0];
}

}  // namespace
}  // namespace sb
