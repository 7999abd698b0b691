#pragma once
// What the runner measures: one model at one size on one backend, able to run any stage of its
// ladder. Models implement it and the harness drives it; both see this and not each other, so
// the harness never sees the op layer and a model never sees the runner.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "contract/collector_sources.h"

namespace sb {

struct Claim {
  std::string source;             // "seed 000"
  std::string text;               // the document's words
  std::optional<double> speedup;  // cumulative speedup the document implies, when it gives one
  // PyTorch's counterpart of the stage: the variants of the model's reference script
  // (scripts/reference/, `stagebench peer`) that do this stage's work, the fastest correct one
  // standing for PyTorch; or, when PyTorch has none, why (pytorch_none). Reports put PyTorch's
  // own ratio for the step beside the claim and ours (docs/method.md#verdicts).
  std::vector<std::string> pytorch = {};
  std::string pytorch_none = {};
  // A claim about one phase of a training step rather than the whole ("reduces CPU-GPU transfer
  // overhead by ~20-30%"): the phase, a key of the stage's summaries.phase_samples_ms, and the
  // speedup [lo, hi] the words imply for that phase over the stage before (docs/method.md).
  std::string phase = {};
  double phase_lo = 0, phase_hi = 0;
};

// Correctness thresholds from docs/method.md, by the precision a stage computes in.
// A training stage is also held to `max_loss_rel`: the largest relative difference of its loss
// curve from the baseline's, step by step; its final parameters are held to min_cosine.
struct Tolerance {
  Tolerance(double cosine = 0.99999, std::string basis_ = "fp32", double loss_rel = 1e-4)
      : min_cosine(cosine), basis(std::move(basis_)), max_loss_rel(loss_rel) {}
  double min_cosine;
  std::string basis;  // fp32, tf32, bf16, fp16, int8
  double max_loss_rel;
  // The relative L2 error allowed beside the cosine: sqrt(2 (1 - min_cosine)), what the cosine
  // bound allows two outputs of equal norm. The cosine alone is blind to magnitude (an output
  // off by a constant factor has cosine 1); this holds the magnitude to the same budget.
  double max_rel_l2() const { return std::sqrt(2 * (1 - min_cosine)); }
};

struct StageSpec {
  StageSpec(std::string id_ = {}, std::string title_ = {}, Claim claim_ = {},
            Tolerance tolerance_ = {}, std::string baseline_ = {})
      : id(std::move(id_)),
        title(std::move(title_)),
        claim(std::move(claim_)),
        tolerance(std::move(tolerance_)),
        baseline(std::move(baseline_)) {}
  std::string id;     // "fused-attention"
  std::string title;  // "Fused attention (streaming softmax)"
  Claim claim;
  Tolerance tolerance;
  // The stage this one is checked against and its speedup is taken over: empty for stage 0.
  // A ladder with a phase of its own (DeepFM's preprocessing, timed apart from the training
  // steps) names that phase's first stage here, in that stage too, so that like is compared
  // with like. The runner always measures the baselines of the stages asked for.
  std::string baseline;
};

// What a training stage's untimed check produced: from the initial parameters, a fixed number
// of steps on the fixed batch sequence with the same dropout masks as every other stage.
struct TrainTrace {
  std::vector<double> loss;   // per step
  std::vector<float> params;  // every parameter after the last step, flattened
};

// Per-sample work, for throughput and roofline.
struct WorkCounts {
  double flops = 0;  // 2 x multiply-adds of matmul/conv/attention
  double bytes = 0;  // minimum device-memory traffic of the stage's kernels
  double items = 1;  // samples (sequences, cells, batches) per forward
  std::string item_name = "sequences";
  std::string precision = "fp32";  // of the stage's GEMMs: picks the roofline's GEMM ceiling
};

// The position of stage `id` (its id, or its index as text) in `ladder`. Throws
// std::invalid_argument "<model>: unknown stage 'x' (stages: a, b, ...)".
size_t find_stage(const std::vector<StageSpec>& ladder, const std::string& id,
                  const std::string& model);

class Workload {
 public:
  virtual ~Workload() = default;
  virtual const std::vector<StageSpec>& stages() const = 0;
  // "inference" or "train": what one run() is (a forward, or one optimizer step).
  virtual std::string mode() const { return "inference"; }
  // Empty when the stage applies here; else the probe's reason (the stage is recorded skipped).
  virtual std::string skip_reason(size_t stage) const = 0;
  // Untimed: weights in the stage's precision, caches, program builds.
  virtual void prepare(size_t stage) = 0;
  // One forward (or step), complete when it returns (device work synchronized).
  virtual void run(size_t stage) = 0;
  // The output of the last run() of this stage, flattened, for the correctness check.
  virtual std::vector<float> output(size_t stage) = 0;
  virtual WorkCounts counts(size_t stage) const = 0;
  virtual CollectorSources sources() = 0;
  // Parameters recorded in the run's "params" (batch, length, ...).
  virtual nlohmann::json params() const = 0;
  // Named figures a stage adds to its result under "summaries" (which graph passes fired, how
  // int8 was calibrated, task-level accuracy), computed untimed after the measurement, in
  // ladder order (stage 0 first). New names never break the schema.
  virtual nlohmann::json summaries(size_t /*stage*/) { return nlohmann::json::object(); }
  // Training stages: the check above, run untimed after the measurement (the measured steps
  // never change what it sees). nullopt: the stage is checked on output() instead.
  virtual std::optional<TrainTrace> train_trace(size_t /*stage*/) { return std::nullopt; }
  // Frees what prepare() built for a stage once the ladder is done with it.
  virtual void release(size_t stage) {}
};

}  // namespace sb
