#pragma once
// DynUNet's ladder as something the runner measures (mode "train"): one sample is one
// optimizer step on the next batch of volumes (data, transfer, forward, backward, update).
// After the measurement each stage also times its inference pass (summaries "inference"), so
// one run gives seed 004's table: training and inference frames per second, and memory.
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "contract/workload.h"
#include "models/dynunet/config.h"
#include "models/dynunet/ladder.h"
#include "models/dynunet/network.h"
#include "models/run_options.h"
#include "models/train_phases.h"

namespace sb::dynunet {

struct WorkloadOptions : RunOptions {
  // AdamW's learning rate; 0: the size's (config.cpp). Tests only: tiny's 1e-2, there so that
  // training visibly learns in a few dozen steps, turns bf16's gradient rounding into whole
  // +-lr sign steps in AdamW's first updates (parameter cosine 0.994 after the 4 check steps on
  // the cpu backend's bf16 convolutions, 0.999 at the documented 1e-3: dynbf40).
  float lr = 0;
};
struct PassTimes;  // graph_replay.h

class DynUnetWorkload : public Workload {
 public:
  DynUnetWorkload(const WorkloadOptions& options, std::unique_ptr<Backend> backend);
  ~DynUnetWorkload() override;

  const std::vector<StageSpec>& stages() const override { return ladder(); }
  std::string mode() const override { return "train"; }
  std::string skip_reason(size_t stage) const override;
  void prepare(size_t stage) override;
  void run(size_t stage) override;
  std::vector<float> output(size_t stage) override;
  std::optional<TrainTrace> train_trace(size_t stage) override;
  WorkCounts counts(size_t stage) const override;
  CollectorSources sources() override;
  nlohmann::json params() const override;
  nlohmann::json summaries(size_t stage) override;
  void release(size_t stage) override;

  Backend& backend() { return *backend_; }
  const Config& config() const { return config_; }
  const Params& parameters() const { return *params_; }
  Switches switches(size_t stage) const;
  // Trains `steps` from the initial parameters on batches 0, 1, ... (untimed); the dice and
  // BCE parts of each step's loss are kept for last_loss_parts(). With step0_gradients, every
  // parameter's gradient after the first backward, before its update, lands there (flattened
  // as TrainTrace::params): a reference compares them without AdamW's sign steps between.
  TrainTrace train(size_t stage, int64_t steps, std::vector<float>* step0_gradients = nullptr);
  const std::vector<StepLoss>& last_loss_parts() const { return loss_parts_; }
  // The inference logits of batch 0 on a prepared stage (flattened, [N, C, P, P, P] in every
  // layout, C the configuration's output channels).
  std::vector<float> infer(size_t stage);
  uint64_t seed() const { return options_.seed; }

 private:
  struct StageRun;
  Precision reduced_precision() const;
  std::string precision_gap(Precision p) const;
  std::string replay_gap(const Switches& sw) const;  // replay35: why the forward cannot record
  // grads: when given, the gradients are read back between backward and update (only the
  // untimed train() asks; timed steps pass null and run the same ops as before).
  StepLoss step(StageRun& r, PhaseTimes* times, std::vector<float>* grads = nullptr);
  // Logits as infer() returns them: [N, C, P, P, P] whatever the stage's layout.
  std::vector<float> logits_ncdhw(const StageRun& r, std::vector<float> logits) const;
  // replay35: the graph-replay stage's forward recorded, checked and timed (graph_replay.h);
  // writes summaries["graph_replay"] and returns the replays' times for "inference".
  PassTimes replay_inference(size_t stage, nlohmann::json& s);

  WorkloadOptions options_;
  Config config_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Params> params_;
  std::vector<std::unique_ptr<StageRun>> runs_;
  std::vector<StepLoss> loss_parts_;
  std::vector<float> baseline_logits_;  // stage 0's inference logits, once its summaries ran
  mutable std::optional<std::string> precision_gap_;  // why the reduced precision cannot run
  mutable std::optional<std::string> bf16_gap_;       // why bf16 convolutions cannot run
  mutable std::optional<std::string> replay_gap_;     // replay35: why the forward cannot record
};

}  // namespace sb::dynunet
