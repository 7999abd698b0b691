#pragma once
// The stagebench/1 records (docs/schema.md), defined once. The runner writes them, the
// validator and the readers (reports, compare, the gbench export, the viewer) read them, all
// through the one to_json/from_json pair below: a document is parsed once into these records
// and read as typed data. The schema's own key paths are spelt here only; the open blocks
// below (context, params, opencl, summaries, sections) hold JSON their writers define.
//
// Conventions kept by the pair:
// - An unknown number is std::nullopt and is written as null; a NaN or Inf is never written.
// - Every block is written with all its keys, whatever the stage's status.
// - Open blocks (counters by name, the OpenCL collector's block, a model's summaries, a
//   collector's own sections) are named so that new data never breaks the schema: readers keep
//   what they do not know.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sb {

inline constexpr const char* kSchema = "stagebench/1";

using Number = std::optional<double>;  // null: unknown or not measured
using Text = std::optional<std::string>;
using Bytes = std::optional<uint64_t>;  // null: unknown; written as an integer

// A finite value, else unknown.
Number finite_or_unknown(double v);

struct ClaimRecord {
  std::string source;  // "seed 000"
  std::string text;    // the document's words
  Number speedup;      // cumulative speedup the document implies, when it gives one
  // PyTorch's counterpart (contract/workload.h Claim): the peer variants doing this stage's work,
  // or why there is none. Both empty in older files.
  std::vector<std::string> pytorch;
  Text pytorch_none;
  // A claim about one phase of the step (contract/workload.h Claim): the phase and the speedup
  // range it implies over the previous stage. Null when the claim is about the whole stage.
  Text phase;
  Number phase_speedup_lo, phase_speedup_hi;
};

struct TimeRecord {
  Number median_ms, mean_ms, stddev_ms, min_ms, max_ms, p10_ms, p90_ms, cv;
  int64_t samples = 0;
  Text stop_reason;
};

struct SpeedupRecord {
  // The stage the speedups are over, when it is not stage 0: a phase of its own (DeepFM's
  // preprocessing) names its first stage. Null for stage 0's phase and in older files.
  Text baseline;
  Number vs_baseline;
  std::optional<std::array<Number, 2>> ci95;
  // The probability that ci95 covers the true median speedup: 0.95 or a little more with 6 or
  // more rounds, less below (the [min, max] of n ratios covers 1 - 2^(1-n)), and for a run of
  // several processes (run --repeat) the pooled interval's, before it was widened to hold every
  // process's own median. Null in older files.
  Number ci95_coverage;
  Number vs_previous;
};

struct ThroughputRecord {
  Number items_per_s;
  Text item_name;
  Number gflops, gbytes_per_s, roofline_frac;
  Text ceiling_precision;  // which GEMM ceiling roofline_frac used
};

struct MemoryRecord {
  Bytes host_peak_bytes;          // peak RSS during the stage's samples
  Bytes host_tensor_peak_bytes;   // the model's own host tensors
  Bytes device_peak_bytes;        // the backend's device buffers
  std::optional<bool> rss_reset;  // whether the RSS high-water mark could be reset per stage
};

struct CounterRecord {
  Number value;      // per sample
  Number per_item;   // value / items per sample
  std::string tier;  // "hardware", "software", "os", "wall", "error"
  Text scope;
  Text error;  // a collector whose report failed
};

struct CorrectnessRecord {
  Number cosine, max_abs, rel_l2;
  Number tolerance;         // the minimum cosine that passes
  Number rel_l2_tolerance;  // the largest relative L2 error that passes (null in older files)
  std::string basis = "fp32";
  // Training stages: the loss curve's largest relative difference from the baseline's, and
  // the bound it is held to; null for inference.
  Number loss_max_rel, loss_tolerance;
  std::optional<bool> pass;  // null: not checked
};

struct StageRecord {
  std::string id, title;
  ClaimRecord claim;
  std::string status = "ok";  // ok, skipped, failed, invalid
  Text reason;                // the reasons joined with "; "; null when ok
  // The precision the stage's GEMMs ran in here ("fp32", "tf32", "bf16", "fp16", "int8"): a
  // stage named for bf16 runs fp16 where the device has no bf16. Null when not measured, and in
  // files older than the field.
  Text precision;
  // The kernel family the stage's tensor-core GEMMs ran on: "wgmma", "mma.sync", or both joined
  // by "+" (most calls first) when shapes split between them; null when the stage ran none (the
  // CPU, PoCL, fp32 stages) and in files older than the field. Per-call counts are in
  // opencl.gemm_calls.
  Text gemm_path;
  std::vector<std::string> reasons;
  TimeRecord time;
  SpeedupRecord speedup;
  ThroughputRecord throughput;
  MemoryRecord memory;
  std::map<std::string, CounterRecord> counters;
  nlohmann::json opencl;  // null unless the OpenCL collector reported
  CorrectnessRecord correctness;
  nlohmann::json summaries;  // the model's named figures; absent when null
  std::optional<std::vector<double>> samples_ms;
  // Named sections a collector adds beside the blocks above ("papi", "counters_status"), and
  // any key a newer writer added: kept as they are.
  std::map<std::string, nlohmann::json> sections;
};

struct CeilingsRecord {
  Number gemm_fp32_gflops, stream_gbytes_per_s;
  std::map<std::string, double> gemm_gflops_given;  // --ceiling PRECISION=GFLOPS
  std::string method;
};

struct JobTag {  // a sweep job's identity
  std::string key;
  int64_t index = 0;
  std::string origin;
};

// A run's reference block ("reference"): another implementation's own stages timed on the same
// machine and shapes as the run (`stagebench peer`: PyTorch's fp32 eager, TF32, bf16 autocast,
// torch.compile). It sits beside the ladder, never in it: its times come from the other
// implementation's script, so readers show them as rows under the ladder, compared with stage 0.
inline constexpr const char* kReferenceName = "PyTorch on this machine";

struct ReferenceVariant {
  std::string name;      // "fp32-eager", "tf32", "bf16-autocast", "compile", ...
  Number median_ms;      // per forward (inference) or optimizer step (train); null if it failed
  int64_t samples = 0;   // timed repetitions behind the median
  Bytes peak_bytes;      // the framework's peak allocated device memory; null where unknown
  Number throughput;     // items per second, where the script names the item
  Text throughput_unit;  // "sequences/s", "samples/s", ...
  Text error;            // why the variant did not run (compile unavailable, out of memory)
  Text precision;        // what it computes in: "fp32", "tf32", "fp16", "bf16"
  // Its output against PyTorch fp32 eager on the same weights and input (the script's check,
  // at docs/method.md's tolerances): null where not checked, and in older files.
  std::optional<bool> correct;
  Number rel_l2;
};

struct ReferenceRecord {
  std::string name = kReferenceName;
  std::string torch;   // the framework's version, "2.5.1+cu124"
  std::string device;  // the device the script ran on, by the framework's name for it
  std::string script;  // "scripts/reference/geneformer_torch.py"
  std::string timing;  // how the script timed, in its words
  std::vector<ReferenceVariant> variants;
  // PyTorch's best: the fastest variant whose output passed the check against PyTorch fp32;
  // null when none was checked (older scripts) or none passed.
  Text best;
  // The work the script timed, in its words (batch, length, layers, output, ...): `peer`
  // attaches a block only to a run whose own parameters agree (harness/peer.h).
  nlohmann::json work;
  std::map<std::string, nlohmann::json> sections;  // keys a newer writer added, kept
};

struct RunRecord {
  std::string model, size, backend, device;
  std::string mode = "inference";  // "inference" | "train"
  nlohmann::json params = nlohmann::json::object();
  std::optional<bool> complete;
  // Set only on a run that measured nothing (its backend could not be made, its job threw):
  // "skipped" or "failed", with the reason.
  Text status, reason;
  std::optional<CeilingsRecord> ceilings;
  std::optional<JobTag> job;
  std::vector<StageRecord> stages;
  std::optional<ReferenceRecord> reference;        // absent unless `stagebench peer` added one
  std::map<std::string, nlohmann::json> sections;  // keys a newer writer added

  bool measured_nothing() const { return status.has_value(); }
};

// A whole document. The context (harness/context: host, cpu, build, collectors, ...) is an open
// block, kept as written; readers take its facts through schema/context_record.h.
struct DocumentRecord {
  std::string schema = kSchema;
  nlohmann::json context = nlohmann::json::object();
  std::vector<RunRecord> runs;
  std::map<std::string, nlohmann::json> sections;  // keys a newer writer added
};

// The OpenCL collector's block (a stage's "opencl"), typed for readers: its kernels, with device
// time summed over the stage's measured samples, and the bytes moved each way. The block stays
// open in StageRecord::opencl (written back as it was read); this is a view of it.
struct KernelRecord {
  std::string name;
  Number launches, total_ns;
};
struct OpenclRecord {
  bool present = false;  // the collector reported (the block is an object)
  std::vector<KernelRecord> kernels;
  Number h2d_bytes, d2h_bytes;
};
// What is malformed in the block is unknown, never an error: the collector owns its shape.
OpenclRecord read_opencl(const StageRecord& s);

// Readers: every problem is named by its path ("runs[0].stages[2].status: ..."). The lenient
// forms fill in what is well-formed, leave the rest unknown, and append the problems; from_json
// throws std::invalid_argument with the first problem.
StageRecord read_stage(const nlohmann::json& j, const std::string& where,
                       std::vector<std::string>& problems);
RunRecord read_run(const nlohmann::json& j, const std::string& where,
                   std::vector<std::string>& problems);
ReferenceRecord read_reference(const nlohmann::json& j, const std::string& where,
                               std::vector<std::string>& problems);
// The whole document: its tag, context and runs, each problem named as validate_document
// (schema/document.h) names it.
DocumentRecord read_document_record(const nlohmann::json& j, std::vector<std::string>& problems);

void to_json(nlohmann::json& j, const StageRecord& s);
void from_json(const nlohmann::json& j, StageRecord& s);
void to_json(nlohmann::json& j, const RunRecord& r);
void from_json(const nlohmann::json& j, RunRecord& r);
void to_json(nlohmann::json& j, const ReferenceRecord& r);
void to_json(nlohmann::json& j, const DocumentRecord& d);

}  // namespace sb
