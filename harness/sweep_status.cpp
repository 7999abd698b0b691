#include "harness/sweep_status.h"

#include <unistd.h>

#include <algorithm>
#include <iomanip>
#include <map>
#include <stdexcept>

#include "harness/journal.h"
#include "schema/user_file.h"

namespace sb {
namespace {

bool one_of(const std::string& s, std::initializer_list<const char*> words) {
  for (const char* w : words)
    if (s == w) return true;
  return false;
}

bool running(const std::string& state) {
  return one_of(state, {"RUNNING", "COMPLETING", "CONFIGURING", "STAGE_OUT"});
}

bool queued(const std::string& state) {
  return one_of(state,
                {"PENDING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESIZING", "SUSPENDED"});
}

// The first line of a command's complaint, for a one-line note.
std::string first_line(const std::string& text) {
  return text.substr(0, std::min(text.find('\n'), size_t{200}));
}

std::string describe(const std::optional<SchedulerState>& s) {
  if (!s) return "";
  return s->state + (s->reason.empty() || s->reason == "None" ? "" : " (" + s->reason + ")");
}

}  // namespace

nlohmann::json to_json(const SlurmState& s) {
  nlohmann::json subs = nlohmann::json::array();
  for (const auto& x : s.submissions)
    subs.push_back({{"date", x.date},
                    {"shards", x.shards},
                    {"array_job", x.array_job},
                    {"merge_job", x.merge_job}});
  return {{"format", "stagebench-slurm/1"},
          {"shards", s.shards},
          {"jobs", s.jobs},
          {"submissions", subs}};
}

SlurmState read_slurm_state(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw std::invalid_argument(path.parent_path().string() +
                                ": not a folder of `stagebench sweep --slurm` (no slurm.json)");
  // The one reader of users' JSON: a FIFO is refused, not waited on; a key named twice is refused.
  const nlohmann::json j = read_json_file(path);
  SlurmState s;
  try {
    if (!j.is_object() || j.value("format", "") != "stagebench-slurm/1")
      throw std::invalid_argument("not a stagebench-slurm/1 document");
    s.shards = j.at("shards").get<size_t>();
    s.jobs = j.at("jobs").get<std::vector<std::string>>();
    for (const auto& x : j.at("submissions"))
      s.submissions.push_back(
          {x.at("date").get<std::string>(), x.at("shards").get<std::vector<size_t>>(),
           x.at("array_job").get<std::string>(), x.at("merge_job").get<std::string>()});
  } catch (const std::exception& e) {
    throw std::invalid_argument(path.string() + ": " + e.what());
  }
  if (s.shards == 0 || s.shards > s.jobs.size())
    throw std::invalid_argument(path.string() + ": shards must be in 1..jobs");
  return s;
}

std::vector<std::vector<std::string>> shard_keys(const std::vector<std::string>& keys,
                                                 size_t shards) {
  std::vector<std::vector<std::string>> out(shards);
  for (size_t j = 0; j < keys.size(); ++j) out[j % shards].push_back(keys[j]);
  return out;
}

bool scheduler_active(const std::string& state) {
  return running(state) || queued(state);
}

bool SweepStatus::complete() const {
  for (const auto& s : shards)
    if (s.state != "done") return false;
  return true;
}

SweepStatus sweep_status(const SlurmLayout& layout, const SlurmState& state,
                         const SchedulerStates& queue, const SchedulerStates& accounting) {
  SweepStatus out;
  const auto per_shard = shard_keys(state.jobs, state.shards);
  const auto lookup = [&](const std::string& id) -> std::optional<SchedulerState> {
    if (auto q = queue.find(id); q != queue.end()) return q->second;
    if (auto a = accounting.find(id); a != accounting.end()) return a->second;
    return std::nullopt;
  };
  for (size_t i = 0; i < state.shards; ++i) {
    ShardStatus s;
    s.index = i;
    s.jobs = per_shard[i].size();
    const JournalContents journal = read_journal(layout.shard_journal(i));
    for (const auto& key : per_shard[i]) {
      if (journal.complete.count(key)) {
        ++s.complete;
      } else if (journal.failed.count(key)) {
        ++s.failed;
        s.unfinished.push_back(key + " (failed)");
      } else if (journal.partial.count(key)) {
        ++s.partial;
        s.unfinished.push_back(key + " (partial)");
      } else {
        s.unfinished.push_back(key + " (not started)");
      }
    }
    for (const auto& sub : state.submissions)
      for (const size_t t : sub.shards)
        if (t == i && !sub.array_job.empty()) s.task = sub.array_job + "_" + std::to_string(i);
    if (!s.task.empty()) s.scheduler = lookup(s.task);
    const std::string sched = s.scheduler ? s.scheduler->state : "";
    if (s.complete == s.jobs)
      s.state = "done";
    else if (running(sched))
      s.state = "running";
    else if (queued(sched))
      s.state = "queued";
    else if (!s.task.empty() || !journal.starts.empty())
      s.state = "failed";  // it ran (or was submitted) and is not running: it will not finish
    else
      s.state = "not submitted";
    out.shards.push_back(std::move(s));
  }
  if (!state.submissions.empty()) {
    out.merge_job = state.submissions.back().merge_job;
    if (!out.merge_job.empty()) out.merge_state = lookup(out.merge_job);
  }
  return out;
}

void ask_scheduler(const SlurmState& state, SchedulerStates& queue, SchedulerStates& accounting,
                   std::vector<std::string>& notes) {
  std::string ids;
  for (const auto& sub : state.submissions)
    for (const auto& id : {sub.array_job, sub.merge_job})
      if (!id.empty()) ids += (ids.empty() ? "" : ",") + id;
  if (ids.empty()) return;
  // squeue -j fails on a job the controller has forgotten; ask for this user's jobs instead, in
  // every state, so that jobs ended in the last minutes (MinJobAge) say how they ended.
  if (find_on_path("squeue")) {
    const CommandOutput q = run_command(
        {"squeue", "-h", "-r", "-t", "all", "-u", std::to_string(getuid()), "-o", "%i|%T|%r"},
        std::chrono::seconds(30));
    if (q.status == 0)
      queue = parse_squeue(q.out);
    else
      notes.push_back("squeue failed: " +
                      (q.timed_out ? std::string("no answer in 30 s") : first_line(q.err)));
  } else {
    notes.push_back("squeue is not on PATH: queued and running tasks are not told apart");
  }
  if (find_on_path("sacct")) {
    const CommandOutput a =
        run_command({"sacct", "-n", "-P", "-X", "-j", ids, "-o", "JobID,State,ExitCode"},
                    std::chrono::seconds(30));
    if (a.status == 0)
      accounting = parse_sacct(a.out);
    else
      notes.push_back("sacct did not answer (" +
                      (a.timed_out ? std::string("no answer in 30 s") : first_line(a.err)) +
                      "): how finished tasks ended is unknown");
  } else {
    notes.push_back("sacct is not on PATH: how finished tasks ended is unknown");
  }
}

void print_status(std::ostream& o, const std::string& folder, const SweepStatus& s) {
  size_t jobs = 0, complete = 0, partial = 0, failed = 0;
  std::map<std::string, size_t> states;
  for (const auto& sh : s.shards) {
    jobs += sh.jobs;
    complete += sh.complete;
    partial += sh.partial;
    failed += sh.failed;
    ++states[sh.state];
  }
  o << "sweep " << folder << ": " << jobs << " jobs in " << s.shards.size() << " shards; "
    << complete << " complete, " << partial << " partial, " << failed << " failed, "
    << jobs - complete - partial - failed << " not started\n";
  o << std::left << std::setw(7) << "shard" << std::setw(6) << "jobs" << std::setw(10) << "complete"
    << std::setw(9) << "partial" << std::setw(8) << "failed" << std::setw(15) << "state"
    << "slurm task\n";
  for (const auto& sh : s.shards) {
    std::string task = sh.task.empty() ? "-" : sh.task;
    if (!sh.task.empty())
      task += sh.scheduler ? " " + describe(sh.scheduler) : std::string(" (not in the queue)");
    o << std::setw(7) << sh.index << std::setw(6) << sh.jobs << std::setw(10) << sh.complete
      << std::setw(9) << sh.partial << std::setw(8) << sh.failed << std::setw(15) << sh.state
      << task << '\n';
  }
  if (!s.merge_job.empty())
    o << "merge job " << s.merge_job << ": "
      << (s.merge_state ? describe(s.merge_state) : "not in the queue") << '\n';
  o << "shards: " << states["done"] << " done, " << states["queued"] << " queued, "
    << states["running"] << " running, " << states["failed"] << " failed, "
    << states["not submitted"] << " not submitted\n";
  for (const auto& sh : s.shards) {
    if (sh.state != "failed" && sh.state != "not submitted") continue;
    o << "never finished: shard " << sh.index;
    if (!sh.task.empty()) o << " (task " << sh.task << ")";
    o << ':';
    for (const auto& u : sh.unfinished) o << ' ' << u;
    o << '\n';
  }
  for (const auto& n : s.notes) o << "note: " << n << '\n';
  if (!s.complete() && states["queued"] + states["running"] == 0)
    o << "re-submit the same sweep (stagebench sweep CONFIG --slurm -o " << folder
      << " --submit) to run what is missing\n";
}

}  // namespace sb
