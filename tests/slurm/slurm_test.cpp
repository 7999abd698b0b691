// A sweep on a real Slurm (run_slurm_test.sh starts a one-node cluster and runs this with
// SLURM_CONF and SB_SLURM_WORK set): `sweep --slurm --submit` runs a tiny cpu sweep as an array
// of 3 shards and a merge job; the merged result holds the unsharded sweep's jobs in its order
// and the report renders. A shard cancelled with scancel mid-way is named by the merge and by
// --status, and re-submitting the sweep runs that shard's missing job only.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "harness/journal.h"
#include "harness/slurm_commands.h"
#include "harness/sweep_config.h"
#include "schema/document.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

sb::CommandOutput stagebench(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {STAGEBENCH_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return sb::run_command(argv, std::chrono::seconds(120));
}

// Polls `ready` every 0.2 s for at most `limit`; returns whether it held.
template <typename Ready>
bool wait_for(Ready ready, std::chrono::seconds limit) {
  const auto end = Clock::now() + limit;
  while (Clock::now() < end) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return ready();
}

// The job's state as squeue knows it (finished jobs stay listed for MinJobAge = 600 s).
std::string job_state(const std::string& id) {
  const sb::CommandOutput r = sb::run_command({"squeue", "-h", "-t", "all", "-j", id, "-o", "%T"},
                                              std::chrono::seconds(20));
  std::string s = r.out.substr(0, r.out.find('\n'));
  return s;
}

bool finished(const std::string& state) {
  return state == "COMPLETED" || state == "FAILED" || state == "CANCELLED" || state == "TIMEOUT" ||
         state == "NODE_FAIL" || state == "OUT_OF_MEMORY";
}

// "submitted array job 12 (tasks 0-2)" / "submitted merge job 13 ..." -> "12" / "13".
std::string submitted(const std::string& out, const std::string& what) {
  const std::string mark = "submitted " + what + " job ";
  const size_t at = out.find(mark);
  if (at == std::string::npos) return "";
  const size_t from = at + mark.size();
  return out.substr(from, out.find_first_not_of("0123456789", from) - from);
}

std::string logs_of(const fs::path& folder) {
  std::string all;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder / "logs", ec))
    all += "---- " + e.path().string() + "\n" + slurp(e.path());
  return all;
}

TEST(SlurmSweep, ArrayMergeCancelResubmitStatusReport) {
  const char* work_env = std::getenv("SB_SLURM_WORK");
  ASSERT_TRUE(work_env && std::getenv("SLURM_CONF"))
      << "run through tests/slurm/run_slurm_test.sh, which starts the cluster";
  const fs::path work = work_env;
  const fs::path folder = work / "sweep";
  // Six jobs of about 3 s each (the sampling stops at max_time), two per shard.
  const fs::path config = work / "tiny.json";
  std::ofstream(config) << R"({"name": "slurm-test",
    "defaults": {"ceilings": false, "stages": ["fused-gelu"],
      "runner": {"noise": 10, "min_samples": 100000, "max_samples": 100000, "warmup": 0,
                 "max_time": 2.5}},
    "entries": [{"models": "enformer", "sizes": "tiny", "backends": "cpu",
                 "batch": [1, 2, 3, 4, 5, 6]}],
    "slurm": {"shards": 3, "time": "10"}})";
  std::vector<std::string> keys;
  for (const auto& j : sb::read_sweep_file(config)) keys.push_back(sb::job_key(j));
  ASSERT_EQ(keys.size(), 6u);

  // 1. Submit: an array of 3 shards and a merge job after it.
  sb::CommandOutput r =
      stagebench({"sweep", config.string(), "--slurm", "-o", folder.string(), "--submit"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string array = submitted(r.out, "array"), merge = submitted(r.out, "merge");
  ASSERT_FALSE(array.empty()) << r.out;
  ASSERT_FALSE(merge.empty()) << r.out;
  EXPECT_NE(slurp(folder / "shards.sbatch").find("#SBATCH --array=0-2"), std::string::npos);

  // 2. Cancel shard 1 in its second job: once its first job is complete in its journal.
  const fs::path journal1 = folder / "shard-1.journal.jsonl";
  ASSERT_TRUE(wait_for([&] { return sb::read_journal(journal1).complete.size() >= 1; },
                       std::chrono::seconds(150)))
      << "shard 1 did not complete a job\n"
      << logs_of(folder);
  ASSERT_EQ(sb::read_journal(journal1).complete.size(), 1u) << "too late to cancel mid-way";
  r = sb::run_command({"scancel", array + "_1"});
  ASSERT_EQ(r.status, 0) << r.err;

  // 3. The merge runs after the array whatever happened, and names the unfinished shard.
  ASSERT_TRUE(wait_for([&] { return finished(job_state(merge)); }, std::chrono::seconds(150)))
      << "merge job " << merge << ": " << job_state(merge) << '\n'
      << logs_of(folder);
  EXPECT_EQ(job_state(merge), "FAILED") << "a sweep with a cancelled shard must not pass";
  const std::string merge_log = slurp(folder / "logs" / ("merge-" + merge + ".out"));
  EXPECT_NE(merge_log.find("never finished: shard 1 (task " + array + "_1): " + keys[4]),
            std::string::npos)
      << merge_log;
  r = stagebench({"sweep", "--status", folder.string()});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("shards: 2 done, 0 queued, 0 running, 1 failed"), std::string::npos)
      << r.out;
  const sb::JournalContents cancelled = sb::read_journal(journal1);
  EXPECT_EQ(cancelled.complete.count(keys[1]), 1u);
  EXPECT_EQ(cancelled.complete.count(keys[4]), 0u);

  // 4. Re-submit the same sweep: shard 1 alone, resumed; it runs its missing job only.
  r = stagebench({"sweep", config.string(), "--slurm", "-o", folder.string(), "--submit"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("1 shards to run (1 jobs)"), std::string::npos) << r.out;
  const std::string array2 = submitted(r.out, "array"), merge2 = submitted(r.out, "merge");
  EXPECT_NE(r.out.find("(tasks 1)"), std::string::npos) << r.out;
  ASSERT_TRUE(wait_for([&] { return finished(job_state(merge2)); }, std::chrono::seconds(150)))
      << "merge job " << merge2 << ": " << job_state(merge2) << '\n'
      << logs_of(folder);
  EXPECT_EQ(job_state(merge2), "COMPLETED") << logs_of(folder);

  const sb::JournalContents resumed = sb::read_journal(journal1);
  ASSERT_EQ(resumed.starts.size(), 2u);
  EXPECT_EQ(resumed.starts.back().value("resumed", -1), 1) << resumed.starts.back().dump();
  EXPECT_EQ(resumed.complete_count.at(keys[1]), 1u) << "the complete job ran again";
  EXPECT_EQ(resumed.complete_count.at(keys[4]), 1u);
  for (const char* other : {"shard-0.journal.jsonl", "shard-2.journal.jsonl"})
    EXPECT_EQ(sb::read_journal(folder / other).starts.size(), 1u) << other << " ran again";

  // 5. The merged result is the unsharded sweep's job list, in its order, all complete.
  const json merged = sb::read_document(folder / "merged.json");
  ASSERT_EQ(merged["runs"].size(), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(merged["runs"][i]["job"]["key"], keys[i]) << i;
    EXPECT_TRUE(merged["runs"][i].value("complete", false)) << i;
  }
  const std::string report = slurp(folder / "report.md");
  EXPECT_NE(report.find("enformer"), std::string::npos) << report;
  EXPECT_NE(slurp(folder / "report.html").find("<html"), std::string::npos);

  r = stagebench({"sweep", "--status", folder.string()});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("shards: 3 done"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("merge job " + merge2 + ": COMPLETED"), std::string::npos) << r.out;
}

}  // namespace
