#pragma once
// Runs a sweep's jobs one after another with a journal (docs/sweeps.md):
// - every finished job's run, and the partial snapshots of the running one, are appended to the
//   journal (journal.h) before anything else happens, so a kill loses nothing measured;
// - after every job (and every journaled snapshot) the output document is rewritten atomically
//   from the journal's runs, so it is always a valid document;
// - with resume, jobs whose key has a complete record in the journal are not run again;
// - a cancel flag (set by a signal handler) stops the running ladder at its next snapshot
//   (the snapshot is journaled first) and the sweep before its next job.
#include <atomic>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/runner.h"
#include "harness/sweep_config.h"

namespace sb {

// Thrown from JobHooks::partial when the cancel flag is set: run_ladder lets it through.
class SweepCancelled : public std::runtime_error {
 public:
  SweepCancelled() : std::runtime_error("sweep cancelled") {}
};

// What a job executor wires into RunnerOptions (on_partial, progress).
struct JobHooks {
  std::function<void(const RunRecord& partial_run)> partial;
  std::function<void(const Progress&)> progress;
};

// Runs one job and returns its run record. A throw other than SweepCancelled records the job
// as failed (a run with "status": "failed" and no stages) and the sweep goes on.
using JobExecutor = std::function<RunRecord(const SweepJob& job, const JobHooks& hooks)>;

enum class JournalMode {
  kNew,      // the journal must not hold records yet (refuses to discard measurements)
  kResume,   // skip the jobs the journal has complete
  kRestart,  // discard the journal and start over
};

struct SweepSession {
  std::vector<SweepJob> jobs;  // this session's jobs (one shard), in sweep order
  std::filesystem::path output;
  std::filesystem::path journal;
  // The sweep file: an existing journal whose start record names it is this sweep's (as is one
  // holding a key of `jobs`); any other is refused. Empty: the keys alone decide.
  std::filesystem::path config;
  JournalMode mode = JournalMode::kNew;
  nlohmann::json context = nlohmann::json::object();       // the output document's context
  nlohmann::json start_record = nlohmann::json::object();  // more facts for the "start" record
  // The stagebench/1 document -> what is written to `output` (e.g. gbench_document); the
  // document itself when empty.
  std::function<nlohmann::json(const nlohmann::json&)> render;
  const std::atomic<bool>* cancel = nullptr;
  double snapshot_interval_s = 5;  // at most one journaled partial per interval (and at cancel)
  bool quiet = false;              // no progress on stderr
  // Called with each job's run once it is journaled and the progress line is cleared (e.g. to
  // print its ladder table).
  std::function<void(const RunRecord& run)> on_job_done;
};

struct SweepOutcome {
  size_t jobs = 0;     // in this session
  size_t resumed = 0;  // already complete in the journal, not run again
  size_t ran = 0;      // run to the end in this session
  size_t failed = 0;   // jobs that threw, or with a failed stage
  bool cancelled = false;
  std::vector<std::string> warnings;  // journal lines skipped, foreign records
  nlohmann::json document;            // the last stagebench/1 document written (before render)
};

// The job's identity on its run object: run["job"] = {"key", "index", "origin"}.
void tag_run(RunRecord& run, const SweepJob& job);

// A run object for a job that produced none (its backend could not be made, it threw).
RunRecord stub_run(const SweepJob& job, const std::string& status, const std::string& reason);

// Throws std::invalid_argument (bad input) for a journal that is not this sweep's
// (check_journal_owner, in every mode: nothing is appended to or deleted from such a file) and
// for a kNew session whose journal already holds records; std::runtime_error when the journal or
// the output cannot be written.
SweepOutcome run_sweep(const SweepSession& session, const JobExecutor& execute);

}  // namespace sb
