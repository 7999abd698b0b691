#pragma once
// Geneformer's ladder as something the runner measures: one batch of cells per forward, the
// cell embeddings (layer 5 of 6, mean over gene tokens) as the output every stage is checked on.
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "contract/workload.h"
#include "models/geneformer/calibration.h"
#include "models/geneformer/model.h"
#include "models/geneformer/perturbation.h"
#include "models/run_options.h"

namespace sb::geneformer {

struct WorkloadOptions : RunOptions {
  ConfigOverrides overrides;   // --heads, --eps
  std::optional<Cells> cells;  // the user's token ids; else seeded synthetic cells
  CalibrationSet calibration{4, 0, 0};
  int64_t perturbed_genes = 0;  // 0: min(32, tokens / 4)
};

// The configuration a workload runs: the size's, or the checkpoint's (checkpoint.h) with the
// size's tokens and batch; the cells' batch and length when there are cells. Throws
// std::invalid_argument naming the first problem.
Config workload_config(const WorkloadOptions& options);

class GeneformerWorkload : public Workload {
 public:
  GeneformerWorkload(const WorkloadOptions& options, std::unique_ptr<Backend> backend);
  ~GeneformerWorkload() override;

  const std::vector<StageSpec>& stages() const override { return ladder(); }
  std::string skip_reason(size_t stage) const override;
  void prepare(size_t stage) override;
  void run(size_t stage) override;
  std::vector<float> output(size_t stage) override;
  WorkCounts counts(size_t stage) const override;
  CollectorSources sources() override;
  nlohmann::json params() const override;
  nlohmann::json summaries(size_t stage) override;
  void release(size_t stage) override;

  Switches switches(size_t stage) const;
  Model& model(size_t stage);  // prepared on first use
  Backend& backend() { return *backend_; }
  const Config& config() const { return config_; }
  const Params& parameters() const { return params_; }
  const Cells& cells() const { return cells_; }

 private:
  Precision reduced_precision() const;
  std::string attention_fallback() const;  // empty: the fused kernel takes this head width
  bool tensor_cores() const;
  nlohmann::json graph_report(size_t stage);
  const PerturbationEffects& effects(size_t stage);

  WorkloadOptions options_;
  Config config_;
  std::unique_ptr<Backend> backend_;
  Params params_;
  Cells cells_;
  DeviceCells device_cells_;
  std::vector<std::unique_ptr<Model>> models_;
  std::vector<std::optional<Outputs>> last_;
  std::vector<nlohmann::json> calibration_;
  std::vector<std::optional<PerturbationEffects>> effects_;
};

}  // namespace sb::geneformer
