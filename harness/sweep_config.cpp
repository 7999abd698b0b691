#include "harness/sweep_config.h"

#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>

#include "schema/user_file.h"

namespace sb {
namespace {

const std::set<std::string> kEntryKeys = {"models", "sizes",    "backends", "device",
                                          "batch",  "seed",     "weights",  "stages",
                                          "events", "ceilings", "runner"};
const std::set<std::string> kRunnerKeys = {"noise",  "max_time", "min_samples",  "max_samples",
                                           "warmup", "quality",  "stable_checks"};
// "slurm": what the jobs ask a cluster for, read by harness/slurm_config.h (not part of a key).
const std::set<std::string> kTopKeys = {"name", "description", "defaults", "entries", "slurm"};

// Raises errors as "SOURCE: FIELD: problem".
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw std::invalid_argument(source_ + ": " + field + ": " + problem);
  }

  std::string got(const nlohmann::json& v) const {
    return std::string("got ") + v.type_name() + " " + v.dump();
  }

  void only_keys(const nlohmann::json& o, const std::string& field,
                 const std::set<std::string>& known) const {
    for (auto it = o.begin(); it != o.end(); ++it) {
      if (known.count(it.key())) continue;
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      fail(field.empty() ? it.key() : field + "." + it.key(), "unknown key (known: " + list + ")");
    }
  }

  std::string string(const nlohmann::json& v, const std::string& field) const {
    if (!v.is_string()) fail(field, "expected a string, " + got(v));
    return v.get<std::string>();
  }

  // A string or an array of strings; `non_empty` rejects [] (and "").
  std::vector<std::string> strings(const nlohmann::json& v, const std::string& field,
                                   bool non_empty) const {
    std::vector<std::string> out;
    if (v.is_string()) {
      out.push_back(v.get<std::string>());
    } else if (v.is_array()) {
      for (size_t i = 0; i < v.size(); ++i)
        out.push_back(string(v[i], field + "[" + std::to_string(i) + "]"));
    } else {
      fail(field, "expected a string or an array of strings, " + got(v));
    }
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i].empty()) fail(field, "empty name");
    if (non_empty && out.empty()) fail(field, "must not be empty");
    return out;
  }

  int64_t integer(const nlohmann::json& v, const std::string& field, int64_t min) const {
    if (!v.is_number_integer()) fail(field, "expected an integer, " + got(v));
    const int64_t x = v.get<int64_t>();
    if (x < min) fail(field, "must be >= " + std::to_string(min) + ", got " + std::to_string(x));
    return x;
  }

  double number(const nlohmann::json& v, const std::string& field) const {
    if (!v.is_number()) fail(field, "expected a number, " + got(v));
    return v.get<double>();
  }

  bool boolean(const nlohmann::json& v, const std::string& field) const {
    if (!v.is_boolean()) fail(field, "expected true or false, " + got(v));
    return v.get<bool>();
  }

  const std::string& source() const { return source_; }

 private:
  std::string source_;
};

// The entry as it applies: the defaults' keys overridden by the entry's, "runner" key by key.
nlohmann::json with_defaults(const nlohmann::json& defaults, const nlohmann::json& entry) {
  nlohmann::json out = defaults;
  for (auto it = entry.begin(); it != entry.end(); ++it) {
    if (it.key() == "runner" && out.contains("runner") && out["runner"].is_object() &&
        it.value().is_object()) {
      for (auto r = it.value().begin(); r != it.value().end(); ++r) out["runner"][r.key()] = *r;
    } else {
      out[it.key()] = it.value();
    }
  }
  return out;
}

SamplingOptions read_runner(const Reader& rd, const nlohmann::json& r, const std::string& field) {
  SamplingOptions s;
  if (!r.is_object()) rd.fail(field, "expected an object, " + rd.got(r));
  rd.only_keys(r, field, kRunnerKeys);
  if (r.contains("noise")) {
    s.noise_target = rd.number(r["noise"], field + ".noise");
    if (!(s.noise_target > 0)) rd.fail(field + ".noise", "must be > 0");
  }
  if (r.contains("max_time")) {
    s.max_time_s = rd.number(r["max_time"], field + ".max_time");
    if (!(s.max_time_s >= 0)) rd.fail(field + ".max_time", "must be >= 0");
  }
  if (r.contains("warmup")) {
    s.warmup_s = rd.number(r["warmup"], field + ".warmup");
    if (!(s.warmup_s >= 0)) rd.fail(field + ".warmup", "must be >= 0");
  }
  if (r.contains("min_samples"))
    s.min_samples = static_cast<size_t>(rd.integer(r["min_samples"], field + ".min_samples", 1));
  if (r.contains("max_samples"))
    s.max_samples = static_cast<size_t>(rd.integer(r["max_samples"], field + ".max_samples", 1));
  if (r.contains("stable_checks"))
    s.stable_checks =
        static_cast<size_t>(rd.integer(r["stable_checks"], field + ".stable_checks", 1));
  if (r.contains("quality")) {
    s.quality = rd.strings(r["quality"], field + ".quality", true);
    for (size_t i = 0; i < s.quality.size(); ++i) {
      try {
        make_criterion(s.quality[i], s);
      } catch (const std::invalid_argument& e) {
        rd.fail(field + ".quality[" + std::to_string(i) + "]", e.what());
      }
    }
  }
  if (s.max_samples < s.min_samples) {
    rd.fail(field + ".max_samples", "must be >= min_samples (" + std::to_string(s.min_samples) +
                                        "), got " + std::to_string(s.max_samples));
  }
  return s;
}

// The value of a model's option as it declared it; messages as for the entry's own keys.
nlohmann::json read_model_option(const Reader& rd, const OptionSpec& spec, const nlohmann::json& v,
                                 const std::string& field) {
  switch (spec.type) {
    case OptionType::integer:
      return rd.integer(v, field, 1);
    case OptionType::number: {
      const double x = rd.number(v, field);
      if (!(x > 0)) rd.fail(field, "must be positive");
      return x;
    }
    case OptionType::existing_file:
      return rd.string(v, field);
  }
  return nullptr;
}

std::vector<SweepJob> expand_entry(const Reader& rd, const nlohmann::json& e,
                                   const std::string& field,
                                   const std::vector<OptionSpec>& model_options) {
  // Keys come from the entry or the defaults; messages name the entry either way.
  auto need = [&](const char* key) -> const nlohmann::json& {
    if (!e.contains(key)) rd.fail(field + "." + key, "missing (in the entry or in defaults)");
    return e.at(key);
  };
  const auto models = rd.strings(need("models"), field + ".models", true);
  const auto sizes = rd.strings(need("sizes"), field + ".sizes", true);
  const auto backends = rd.strings(need("backends"), field + ".backends", true);

  SweepJob base;
  base.origin = rd.source() + ": " + field;
  if (e.contains("device")) base.device = rd.string(e["device"], field + ".device");
  if (e.contains("seed"))
    base.seed = static_cast<uint64_t>(rd.integer(e["seed"], field + ".seed", 0));
  if (e.contains("weights")) base.weights = rd.string(e["weights"], field + ".weights");
  for (const OptionSpec& spec : model_options)
    if (e.contains(spec.name))
      base.options[spec.name] = {
          spec, read_model_option(rd, spec, e[spec.name], field + "." + spec.name)};
  if (e.contains("stages")) base.stages = rd.strings(e["stages"], field + ".stages", true);
  if (e.contains("events")) base.events = rd.strings(e["events"], field + ".events", true);
  if (e.contains("ceilings")) base.ceilings = rd.boolean(e["ceilings"], field + ".ceilings");
  if (e.contains("runner")) base.runner = read_runner(rd, e["runner"], field + ".runner");

  std::vector<int64_t> batches = {1};
  if (e.contains("batch")) {
    const auto& b = e["batch"];
    batches.clear();
    if (b.is_array()) {
      if (b.empty()) rd.fail(field + ".batch", "must not be empty");
      for (size_t i = 0; i < b.size(); ++i)
        batches.push_back(rd.integer(b[i], field + ".batch[" + std::to_string(i) + "]", 1));
    } else {
      batches.push_back(rd.integer(b, field + ".batch", 1));
    }
  }

  std::vector<SweepJob> jobs;
  for (const auto& model : models)
    for (const auto& size : sizes)
      for (const auto& backend : backends)
        for (const int64_t batch : batches) {
          SweepJob j = base;
          j.model = model;
          j.size = size;
          j.backend = backend;
          j.batch = batch;
          jobs.push_back(std::move(j));
        }
  return jobs;
}

uint64_t fnv1a64(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

nlohmann::json job_spec(const SweepJob& job) {
  // nlohmann::json objects keep their keys sorted, so dump() is canonical.
  nlohmann::json spec = {{"model", job.model},
                         {"size", job.size},
                         {"backend", job.backend},
                         {"device", job.device},
                         {"batch", job.batch},
                         {"seed", job.seed},
                         {"weights", job.weights},
                         {"stages", job.stages},
                         {"events", job.events},
                         {"ceilings", job.ceilings},
                         {"runner",
                          {{"noise", job.runner.noise_target},
                           {"max_time", job.runner.max_time_s},
                           {"min_samples", job.runner.min_samples},
                           {"max_samples", job.runner.max_samples},
                           {"warmup", job.runner.warmup_s}}}};
  // Only a non-default choice of criteria is part of the job's identity, so that the keys of
  // journals written before the choice existed still match.
  if (job.runner.quality != SamplingOptions().quality)
    spec["runner"]["quality"] = job.runner.quality;
  if (job.runner.stable_checks != SamplingOptions().stable_checks)
    spec["runner"]["stable_checks"] = job.runner.stable_checks;
  for (const auto& [name, option] : job.options) spec[name] = option.value;
  return spec;
}

std::string job_key(const SweepJob& job) {
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(fnv1a64(job_spec(job).dump())));
  return job.model + "/" + job.size + "/" + job.backend + "/" + hash;
}

std::vector<SweepJob> expand_sweep(const nlohmann::json& sweep, const std::string& source,
                                   const std::vector<OptionSpec>& model_options) {
  const Reader rd(source);
  std::vector<OptionSpec> options;
  std::set<std::string> entry_keys = kEntryKeys;
  for (const OptionSpec& o : model_options)
    if (o.scope.sweep && entry_keys.insert(o.name).second) options.push_back(o);
  if (!sweep.is_object()) rd.fail("document", "expected a JSON object, " + rd.got(sweep));
  rd.only_keys(sweep, "", kTopKeys);
  if (sweep.contains("name")) rd.string(sweep["name"], "name");
  nlohmann::json defaults = nlohmann::json::object();
  if (sweep.contains("defaults")) {
    defaults = sweep["defaults"];
    if (!defaults.is_object()) rd.fail("defaults", "expected an object, " + rd.got(defaults));
    rd.only_keys(defaults, "defaults", entry_keys);
  }
  if (!sweep.contains("entries")) rd.fail("entries", "missing");
  const auto& entries = sweep["entries"];
  if (!entries.is_array()) rd.fail("entries", "expected an array, " + rd.got(entries));
  if (entries.empty()) rd.fail("entries", "must not be empty");

  std::vector<SweepJob> jobs;
  std::map<std::string, std::string> seen;  // key -> origin
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string field = "entries[" + std::to_string(i) + "]";
    if (!entries[i].is_object()) rd.fail(field, "expected an object, " + rd.got(entries[i]));
    rd.only_keys(entries[i], field, entry_keys);
    for (SweepJob& j : expand_entry(rd, with_defaults(defaults, entries[i]), field, options)) {
      const std::string key = job_key(j);
      const auto [it, fresh] = seen.emplace(key, field);
      if (!fresh) {
        rd.fail(field, "repeats the job " + j.model + "/" + j.size + "/" + j.backend + " batch " +
                           std::to_string(j.batch) + " of " + it->second +
                           " (same parameters; every job must be distinct)");
      }
      j.index = jobs.size();
      jobs.push_back(std::move(j));
    }
  }
  return jobs;
}

std::vector<SweepJob> read_sweep_file(const std::filesystem::path& path,
                                      const std::vector<OptionSpec>& model_options) {
  // Regular files only, nesting bounded, numbers in range: each refused naming the file.
  return expand_sweep(read_json_file(path), path.string(), model_options);
}

Shard parse_shard(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return std::invalid_argument("--shard '" + text + "': " + why);
  };
  const size_t slash = text.find('/');
  if (slash == std::string::npos) throw bad("expected i/N, e.g. 0/2");
  auto parse = [&](const std::string& s) -> size_t {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
      throw bad("expected i/N with non-negative integers, e.g. 0/2");
    try {
      return std::stoull(s);
    } catch (const std::exception&) {
      throw bad("number out of range");
    }
  };
  Shard s{parse(text.substr(0, slash)), parse(text.substr(slash + 1))};
  if (s.count == 0) throw bad("N must be >= 1");
  if (s.index >= s.count) throw bad("i must be in 0.." + std::to_string(s.count - 1));
  return s;
}

std::vector<SweepJob> shard_jobs(const std::vector<SweepJob>& jobs, const Shard& shard) {
  if (shard.count == 0 || shard.index >= shard.count)
    throw std::invalid_argument("shard_jobs: shard index must be < count");
  std::vector<SweepJob> out;
  for (const auto& j : jobs)
    if (j.index % shard.count == shard.index) out.push_back(j);
  return out;
}

}  // namespace sb
