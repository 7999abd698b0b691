#include "harness/journal_match.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

#include "schema/user_file.h"

namespace sb {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// "P:D", the device's platform and index: not a part of its name.
bool device_index(const std::string& filter) {
  const size_t colon = filter.find(':');
  const auto digits = [](const std::string& s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
  };
  return colon != std::string::npos && digits(filter.substr(0, colon)) &&
         digits(filter.substr(colon + 1));
}

std::string text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// The seed N in "seeded random (seed N)", the models' note of random weights; -1 without one.
int64_t seed_in(const std::string& weights) {
  const std::string tag = "(seed ";
  const size_t at = weights.find(tag);
  if (at == std::string::npos) return -1;
  try {
    return std::stoll(weights.substr(at + tag.size()));
  } catch (const std::exception&) {
    return -1;
  }
}

}  // namespace

std::string run_mismatch(const nlohmann::json& run, const std::string& key, const SweepJob& job) {
  const nlohmann::json tag = run.value("job", nlohmann::json());
  if (!tag.is_object() || !tag.contains("key"))
    return "holds a run without a job tag (not a sweep's run)";
  if (tag["key"] != key) return "holds the run of job " + text(tag["key"]);
  for (const auto& [field, want] : {std::pair<const char*, const std::string&>{"model", job.model},
                                    {"size", job.size},
                                    {"backend", job.backend}}) {
    if (run.value(field, nlohmann::json()) != want)
      return std::string("is a run of ") + field + " " + text(run.value(field, nlohmann::json())) +
             ", not the job's " + want;
  }
  if (!job.device.empty() && !device_index(job.device)) {
    const nlohmann::json device = run.value("device", nlohmann::json());
    if (!device.is_string() ||
        lower(device.get<std::string>()).find(lower(job.device)) == std::string::npos)
      return "is a run on device '" + text(device) + "', which the job's '" + job.device +
             "' does not name";
  }
  const nlohmann::json params = run.value("params", nlohmann::json::object());
  const auto param = [&](const char* name) {
    return params.is_object() && params.contains(name) ? params[name] : nlohmann::json();
  };
  // Models without a batch run batch 1 only.
  const nlohmann::json batch = param("batch").is_null() ? nlohmann::json(1) : param("batch");
  if (batch != job.batch)
    return "is a run of batch " + text(batch) + ", not the job's " + std::to_string(job.batch);
  if (const nlohmann::json w = param("weights"); w.is_string()) {
    const std::string weights = w.get<std::string>();
    if (!job.weights.empty() && weights != job.weights)
      return "is a run of weights " + weights + ", not the job's " + job.weights;
    if (job.weights.empty() && !weights.starts_with("seeded"))
      return "is a run of weights " + weights + ", not the job's seeded random ones";
    if (job.weights.empty() && seed_in(weights) >= 0 &&
        seed_in(weights) != static_cast<int64_t>(job.seed))
      return "is a run of " + weights + ", not the job's seed " + std::to_string(job.seed);
  }
  // A model without weights (the GEMM benchmark) records its seed only in `inputs` ("... (seed
  // N)"), and a run of another seed was taken as the job's. (Where there are weights, their
  // seed is checked above: a model's `inputs` may carry a seed of their own.)
  if (const nlohmann::json in = param("inputs");
      param("weights").is_null() && in.is_string() && seed_in(in.get<std::string>()) >= 0 &&
      seed_in(in.get<std::string>()) != static_cast<int64_t>(job.seed))
    return "is a run of " + in.get<std::string>() + ", not the job's seed " +
           std::to_string(job.seed);
  // What the job sets of the model's options, under the name the model's params record it; a
  // value the model keeps as a float is compared at that precision.
  for (const auto& [name, option] : job.options) {
    if (option.spec.param.empty()) continue;
    const nlohmann::json have = param(option.spec.param.c_str());
    if (have.is_null()) continue;
    const bool differs =
        option.spec.float32 ? have.is_number() && static_cast<float>(have.get<double>()) !=
                                                      static_cast<float>(option.value.get<double>())
                            : have != option.value;
    if (differs)
      return "is a run of " + option.spec.param + " " + text(have) + ", not the job's " +
             text(option.value);
  }
  return {};
}

void check_journal_owner(const std::filesystem::path& path, const JournalContents& journal,
                         const std::vector<std::string>& keys,
                         const std::filesystem::path& config) {
  if (journal.lines == 0) return;  // missing, empty or blank: a new journal
  if (journal.starts.empty())
    throw std::invalid_argument(
        path.string() +
        ": exists and is not a sweep journal (it has no \"start\" record): a sweep appends to its "
        "journal, which would damage this file; name another --journal (or -o, whose journal it "
        "is by default)");
  const std::set<std::string> ours(keys.begin(), keys.end());
  std::set<std::string> theirs;
  std::string their_config;
  for (const auto& start : journal.starts) {
    const nlohmann::json c = start.value("config", nlohmann::json());
    if (c.is_string()) {
      their_config = c.get<std::string>();
      if (!config.empty() && same_file(their_config, config)) return;
    }
    const nlohmann::json jobs = start.value("jobs", nlohmann::json());
    if (jobs.is_array())
      for (const auto& k : jobs)
        if (k.is_string()) theirs.insert(k.get<std::string>());
  }
  for (const auto* records : {&journal.complete, &journal.partial, &journal.failed})
    for (const auto& [key, run] : *records) theirs.insert(key);
  for (const auto& key : theirs)
    if (ours.count(key)) return;
  throw std::invalid_argument(
      path.string() + ": the journal of another sweep (" +
      (their_config.empty() ? std::string("its sweep file unnamed") : their_config) +
      "; none of its jobs is a job of this one" +
      (config.empty() ? std::string() : ", " + config.string()) +
      "): refused, so that its measurements are neither mixed with this sweep's nor discarded; "
      "name another --journal (or -o), or delete it");
}

}  // namespace sb
