#pragma once
// A sweep file (docs/sweeps.md): entries of models x sizes x backends x batches with their
// runner options, expanded into an ordered list of jobs. One job is one run_ladder call.
//
// This layer knows the file's shape only; whether a model, size or stage exists is checked by
// the caller against the model registry (check_jobs in the CLI), with the job's `origin` to name
// the field.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contract/model_options.h"
#include "harness/stopping.h"

namespace sb {

struct SweepJob {
  size_t index = 0;    // position in the full (unsharded) expansion
  std::string origin;  // where it came from, for messages: "sweep.json: entries[1]"
  std::string model;
  std::string size;
  std::string backend;
  std::string device;  // OpenCL device filter; empty: the default device
  int64_t batch = 1;
  uint64_t seed = 1;
  std::string weights;  // .safetensors path; empty: seeded random
  // The models' own options the entry sets (declared by the models, contract/model_options.h),
  // with their declarations: part of the job's key, and compared with what a journal's run
  // records. Which model takes which is checked by the caller.
  struct Option {
    OptionSpec spec;
    nlohmann::json value;
  };
  std::map<std::string, Option> options;
  std::vector<std::string> stages;  // stage ids; empty: the whole ladder
  std::vector<std::string> events;  // PAPI events; empty: the defaults
  bool ceilings = true;
  SamplingOptions runner;  // the entry's "runner" block
};

// Everything that makes a job what it is, as JSON with sorted keys: the input of job_key.
nlohmann::json job_spec(const SweepJob& job);

// Stable identity of a job: "model/size/backend/" + 16 hex digits of a 64-bit FNV-1a hash of
// job_spec(job).dump(). The same job in another session, shard or process has the same key.
std::string job_key(const SweepJob& job);

// Parses a sweep document. `source` names it in messages ("sweep.json"); every error is a
// std::invalid_argument "SOURCE: FIELD: problem", e.g. "sweep.json: entries[0].sizes[1]:
// expected a string, got number". Jobs come out in expansion order, indices 0..n-1.
// `model_options`: the options models declare (of scope sweep), which an entry may set beside
// its own keys; any other key is unknown.
std::vector<SweepJob> expand_sweep(const nlohmann::json& sweep, const std::string& source,
                                   const std::vector<OptionSpec>& model_options = {});

// Reads and expands a sweep file; errors name the file (parse errors with line and column).
std::vector<SweepJob> read_sweep_file(const std::filesystem::path& path,
                                      const std::vector<OptionSpec>& model_options = {});

// "i/N" -> {i, N} with 0 <= i < N; throws std::invalid_argument otherwise.
struct Shard {
  size_t index = 0;
  size_t count = 1;
};
Shard parse_shard(const std::string& text);

// The jobs of one shard: job j belongs to shard (j mod N) == i. Order is kept.
std::vector<SweepJob> shard_jobs(const std::vector<SweepJob>& jobs, const Shard& shard);

}  // namespace sb
