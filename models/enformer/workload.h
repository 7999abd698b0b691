#pragma once
// Enformer's ladder as something the runner can measure.
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "contract/workload.h"
#include "models/enformer/checkpoint.h"
#include "models/enformer/model.h"
#include "models/run_options.h"

namespace sb::enformer {

// batch 0: one sequence (the sizes fix none).
struct WorkloadOptions : RunOptions {
  ConfigOverrides overrides;  // --length, --target
};

// The configuration a workload runs: the size's, or the checkpoint's (checkpoint.h), at the
// overrides' length and target. Throws std::invalid_argument naming the first problem.
Config workload_config(const WorkloadOptions& options);

class EnformerWorkload : public Workload {
 public:
  EnformerWorkload(const WorkloadOptions& options, std::unique_ptr<Backend> backend);
  ~EnformerWorkload() override;

  const std::vector<StageSpec>& stages() const override { return ladder(); }
  std::string skip_reason(size_t stage) const override;
  void prepare(size_t stage) override;
  void run(size_t stage) override;
  std::vector<float> output(size_t stage) override;
  WorkCounts counts(size_t stage) const override;
  CollectorSources sources() override;
  nlohmann::json params() const override;
  void release(size_t stage) override;

  // One forward of a stage on an input of the caller's (synchronized).
  Outputs forward(size_t stage, const Tensor& input);
  Backend& backend() { return *backend_; }
  const Config& config() const { return config_; }
  const Params& parameters() const { return params_; }

 // The switches stage `stage` runs with (its ladder row and the environment's knobs).
  Switches switches(size_t stage) const;

 private:
  Precision reduced_precision() const;

  WorkloadOptions options_;
  Config config_;
  std::unique_ptr<Backend> backend_;
  Params params_;
  Tensor input_;
  std::vector<std::unique_ptr<Model>> models_;
  std::vector<std::optional<Outputs>> last_;
};

// Seeded random one-hot DNA [batch, bp, 4] (A, C, G, T uniformly).
std::vector<float> random_one_hot(int64_t batch, int64_t bp, uint64_t seed);

}  // namespace sb::enformer
