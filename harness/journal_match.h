#pragma once
// Whether what a journal holds belongs to this sweep (docs/sweeps.md, "Resume"). A journal is
// trusted with measurements: a record used for the wrong job would put one job's numbers under
// another's name, and a file taken for a journal would be appended to (a result, the sweep file).
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/journal.h"
#include "harness/sweep_config.h"

namespace sb {

// "" when `run`, found in a record of `key` (job_key(job)), is that job's run; else the first
// difference, e.g. "is a run of size small, not the job's tiny". Compared: the run's
// job tag (its key), model, size and backend; its device, where the job names one by a name
// substring (a "P:D" index cannot be told from a device's name); and the parameters the run
// records of what the job chose: batch, weights (or the seed of random ones), and the model's
// options the job sets, under the params key each declares (OptionSpec::param).
std::string run_mismatch(const nlohmann::json& run, const std::string& key, const SweepJob& job);

// Throws std::invalid_argument (bad input, exit 2) when `path`, read as `journal`, exists with
// content but is not a sweep journal (no "start" record: a result, the sweep file, anything
// else), or is the journal of another sweep: none of its start records names `config` (when
// given) and none of its keys is one of `keys`. An empty or missing file is a new journal.
void check_journal_owner(const std::filesystem::path& path, const JournalContents& journal,
                         const std::vector<std::string>& keys, const std::filesystem::path& config);

}  // namespace sb
