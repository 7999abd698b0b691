#pragma once
// DeepFM's ladder as something the runner measures (mode "train"): one sample of a training
// stage is one optimizer step on the next batch (data, transfer, forward, backward, update);
// one sample of a data-phase stage is one cleaning pass over the whole table. Training stages
// are checked by their trace (contract/workload.h), data-phase stages by the encoding they give.
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "contract/workload.h"
#include "models/deepfm/config.h"
#include "models/deepfm/data/data.h"
#include "models/deepfm/ladder.h"
#include "models/deepfm/model.h"
#include "models/run_options.h"
#include "models/train_phases.h"

namespace sb::deepfm {

struct WorkloadOptions : RunOptions {
  std::filesystem::path data;    // the user's table (.tsv); empty: a seeded synthetic table
  std::optional<float> dropout;  // overrides the size's (0: a reference check without masks)
};

class DeepFmWorkload : public Workload {
 public:
  DeepFmWorkload(const WorkloadOptions& options, std::unique_ptr<Backend> backend);
  ~DeepFmWorkload() override;

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
  const Dataset& dataset() const { return dataset_; }
  Switches switches(size_t stage) const;
  // Trains `steps` from the initial parameters (untimed), returning the trace; the three task
  // losses of each of those steps are kept for last_task_losses() (steps x 3).
  TrainTrace train(size_t stage, int64_t steps);
  const std::vector<double>& last_task_losses() const { return task_losses_; }
  uint64_t seed() const { return options_.seed; }

 private:
  struct StageRun;
  Precision reduced_precision() const;
  std::string precision_gap(Precision p) const;
  StepResult step(StageRun& r, PhaseTimes* times);

  WorkloadOptions options_;
  Config config_;
  std::unique_ptr<Backend> backend_;
  Table table_;
  Dataset dataset_;
  std::unique_ptr<Params> params_;
  Cardinality model_rows_{};  // the embedding tables' rows (the checkpoint's, else the data's)
  std::array<int32_t, 4> offsets_{};
  std::vector<std::unique_ptr<StageRun>> runs_;
  std::vector<double> task_losses_;
  mutable std::optional<std::string> amp_gap_;  // why amp cannot run here; empty: it can
};

}  // namespace sb::deepfm
