#include "harness/sweep_runner.h"

#include <chrono>
#include <map>

#include "harness/journal.h"
#include "harness/journal_match.h"
#include "harness/sweep_progress.h"
#include "schema/document.h"
#include "schema/records.h"

namespace sb {
namespace {

using Clock = std::chrono::steady_clock;

bool has_failure(const RunRecord& run) {
  if (run.status == "failed") return true;
  for (const auto& st : run.stages)
    if (st.status == "failed") return true;
  return false;
}

std::string job_label(const SweepJob& job) {
  return job.model + "/" + job.size + "/" + job.backend + " batch " + std::to_string(job.batch);
}

class Sweep {
 public:
  Sweep(const SweepSession& s, const JobExecutor& execute) : s_(s), execute_(execute) {}

  SweepOutcome run() {
    out_.jobs = s_.jobs.size();
    load_journal();
    JournalWriter journal(s_.journal);
    journal_ = &journal;
    nlohmann::json start = s_.start_record.is_object() ? s_.start_record : nlohmann::json::object();
    start["type"] = "start";
    // What tells this sweep's journal from another's when none of their keys meet (an edit).
    if (!s_.config.empty()) start["config"] = s_.config.string();
    start["jobs"] = keys_;
    start["resumed"] = complete_.size();
    journal.append(start);
    out_.resumed = complete_.size();
    write_output();

    SweepProgress progress(s_.jobs.size(), out_.resumed, s_.quiet);
    progress_ = &progress;
    for (size_t i = 0; i < s_.jobs.size(); ++i) {
      if (complete_.count(keys_[i])) continue;
      if (cancelled()) {
        out_.cancelled = true;
        break;
      }
      if (!run_job(s_.jobs[i], keys_[i])) break;
    }
    progress_ = nullptr;
    journal_ = nullptr;
    return out_;
  }

 private:
  bool cancelled() const { return s_.cancel && s_.cancel->load(); }

  void load_journal() {
    std::map<std::string, const SweepJob*> jobs;
    for (const auto& job : s_.jobs) {
      keys_.push_back(job_key(job));
      jobs[keys_.back()] = &job;
    }
    // A record is used for its key's job only when its run is that job's run: an edited or
    // corrupted journal must not put one job's numbers under another's name. Keys of other
    // shards (or an edited file) are left out below.
    const RecordCheck check = [&jobs](const std::string& key, const nlohmann::json& run) {
      const auto it = jobs.find(key);
      return it == jobs.end() ? std::string() : run_mismatch(run, key, *it->second);
    };
    JournalContents prior = read_journal(s_.journal, check);
    // Before anything is appended or deleted: the file must be this sweep's journal (or new).
    check_journal_owner(s_.journal, prior, keys_, s_.config);
    if (s_.mode == JournalMode::kRestart) {
      std::filesystem::remove(s_.journal);
      prior = JournalContents();
    }
    if (s_.mode == JournalMode::kNew && (!prior.starts.empty() || !prior.complete.empty() ||
                                         !prior.partial.empty() || !prior.failed.empty())) {
      throw std::invalid_argument(
          s_.journal.string() + ": the journal of an earlier sweep is there (" +
          std::to_string(prior.complete.size()) +
          " complete jobs): pass --resume to continue it, or --restart to discard it");
    }
    out_.warnings = prior.warnings;
    size_t foreign = 0;
    for (const auto& key : keys_) {
      if (auto c = prior.complete.find(key); c != prior.complete.end()) {
        complete_[key] = c->second;
      } else if (auto p = prior.partial.find(key); p != prior.partial.end()) {
        latest_[key] = p->second;
      } else if (auto f = prior.failed.find(key); f != prior.failed.end()) {
        latest_[key] = f->second;  // shown as failed until it is measured again
      }
    }
    for (const auto& [key, run] : prior.complete)
      if (!complete_.count(key)) ++foreign;
    if (foreign > 0) {
      out_.warnings.push_back(s_.journal.string() + ": " + std::to_string(foreign) +
                              " complete jobs are not jobs of this sweep (or shard): left out");
    }
  }

  // The document from the journal's runs, in job order: a job's complete run, else its latest
  // snapshot (partial, or the stub of a failed job).
  void write_output() {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& key : keys_) {
      if (auto c = complete_.find(key); c != complete_.end()) {
        runs.push_back(c->second);
      } else if (auto l = latest_.find(key); l != latest_.end()) {
        runs.push_back(l->second);
      }
    }
    out_.document = make_document(s_.context, runs);
    write_json_atomic(s_.output, s_.render ? s_.render(out_.document) : out_.document);
  }

  void record(const char* type, const std::string& key, const nlohmann::json& run) {
    journal_->append({{"type", type}, {"key", key}, {"run", run}});
  }

  // Returns false when the sweep was cancelled during the job.
  bool run_job(const SweepJob& job, const std::string& key) {
    progress_->begin_job(job_label(job));
    Clock::time_point last_snapshot = Clock::now() - std::chrono::hours(1);
    JobHooks hooks;
    hooks.progress = [this](const Progress& p) { progress_->update(p); };
    hooks.partial = [&](const RunRecord& partial) {
      const bool stop = cancelled();
      const double since = std::chrono::duration<double>(Clock::now() - last_snapshot).count();
      if (stop || since >= s_.snapshot_interval_s) {
        RunRecord run = partial;
        tag_run(run, job);
        nlohmann::json j = run;
        record("partial", key, j);
        latest_[key] = std::move(j);
        write_output();
        last_snapshot = Clock::now();
      }
      if (stop) throw SweepCancelled();
    };

    RunRecord run;
    try {
      run = execute_(job, hooks);
    } catch (const SweepCancelled&) {
      out_.cancelled = true;
      progress_->end_job("cancelled");
      write_output();
      return false;
    } catch (const std::exception& e) {
      run = stub_run(job, "failed", e.what());
    }
    tag_run(run, job);
    const bool failed = has_failure(run);
    if (run.measured_nothing()) {
      // Nothing was measured: a resumed sweep tries the job again.
      const nlohmann::json j = run;
      record("failed", key, j);
      latest_[key] = j;
    } else {
      run.complete = true;
      const nlohmann::json j = run;
      record("complete", key, j);
      complete_[key] = j;
      latest_.erase(key);
      ++out_.ran;
    }
    if (failed) ++out_.failed;
    write_output();
    progress_->end_job(run.measured_nothing() ? *run.status + ": " + run.reason.value_or("")
                                              : (failed ? "done, with failed stages" : "done"));
    if (s_.on_job_done) s_.on_job_done(run);
    return true;
  }

  const SweepSession& s_;
  const JobExecutor& execute_;
  SweepOutcome out_;
  std::vector<std::string> keys_;
  std::map<std::string, nlohmann::json> complete_;
  std::map<std::string, nlohmann::json> latest_;
  JournalWriter* journal_ = nullptr;
  SweepProgress* progress_ = nullptr;
};

}  // namespace

void tag_run(RunRecord& run, const SweepJob& job) {
  run.job = JobTag{job_key(job), static_cast<int64_t>(job.index), job.origin};
}

RunRecord stub_run(const SweepJob& job, const std::string& status, const std::string& reason) {
  RunRecord run = unmeasured_run({job.model, job.size, job.backend, job.device, "inference"},
                                 {{"batch", job.batch}}, status, reason);
  tag_run(run, job);
  return run;
}

SweepOutcome run_sweep(const SweepSession& session, const JobExecutor& execute) {
  return Sweep(session, execute).run();
}

}  // namespace sb
