#pragma once
// A sweep file (docs/sweeps.md): entries of models x sizes x backends x batches with their
// runner options, expanded into an ordered list of jobs. One job is one run_ladder call.
//
// This layer knows the file's shape only; whether a model, size or stage exists is checked by
// the caller against the model registry (check_jobs in the CLI), with the job's `origin` to name
// the field.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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
  // A checkpoint's heads and LayerNorm eps (geneformer), the input length and crop (enformer);
  // 0 / unset: the model's own rules. Part of the job's key only when set.
  int64_t heads = 0;
  std::optional<double> eps;
  int64_t length = 0;
  int64_t target = 0;
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
std::vector<SweepJob> expand_sweep(const nlohmann::json& sweep, const std::string& source);

// Reads and expands a sweep file; errors name the file (parse errors with line and column).
std::vector<SweepJob> read_sweep_file(const std::filesystem::path& path);

// "i/N" -> {i, N} with 0 <= i < N; throws std::invalid_argument otherwise.
struct Shard {
  size_t index = 0;
  size_t count = 1;
};
Shard parse_shard(const std::string& text);

// The jobs of one shard: job j belongs to shard (j mod N) == i. Order is kept.
std::vector<SweepJob> shard_jobs(const std::vector<SweepJob>& jobs, const Shard& shard);

}  // namespace sb
