#pragma once
// The GEMM benchmark as something the runner measures: one linear layer y = x . W^T (the op
// layer's Backend::linear on a Weight from prepare_weight) per stage, on seeded random x and W.
// The output every stage is checked on is all of y.
#include <memory>
#include <optional>
#include <vector>

#include "contract/workload.h"
#include "models/gemm/config.h"
#include "models/gemm/ladder.h"

namespace sb::gemm {

struct WorkloadOptions {
  std::string size = "small";
  uint64_t seed = 1;  // W from seed, x from seed + 1
};

// x and W are drawn uniformly from [kInputLo, kInputHi): the int8 stage's calibrated input range.
inline constexpr float kInputLo = -1.f, kInputHi = 1.f;

class GemmWorkload : public Workload {
 public:
  GemmWorkload(const WorkloadOptions& options, std::unique_ptr<Backend> backend);
  ~GemmWorkload() override;

  const std::vector<StageSpec>& stages() const override { return ladder(); }
  std::string skip_reason(size_t stage) const override;
  void prepare(size_t stage) override;
  void run(size_t stage) override;
  std::vector<float> output(size_t stage) override;
  WorkCounts counts(size_t stage) const override;
  CollectorSources sources() override;
  nlohmann::json params() const override;
  void release(size_t stage) override;

  Backend& backend() { return *backend_; }
  const Config& config() const { return config_; }

 private:
  struct Prepared {
    Weight weight;
    Tensor x;  // the fp16 stage's f16 input (f16_input()); undefined: x_
    Tensor y;
    bool ran = false;
  };

  WorkloadOptions options_;
  Config config_;
  std::unique_ptr<Backend> backend_;
  std::vector<float> w_host_;  // [n, k], prepared per stage at its precision
  Tensor x_;                   // [m, k]
  std::vector<std::optional<Prepared>> prepared_;
  Tensor f16_input(const Weight& w, Tensor& y);
};

// Seeded values uniform in [kInputLo, kInputHi), as the models' seeded weights are drawn.
std::vector<float> random_matrix(int64_t rows, int64_t cols, uint64_t seed);

}  // namespace sb::gemm
