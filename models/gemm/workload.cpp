#include "models/gemm/workload.h"

#include <random>

#include "models/backend_sources.h"
#include "models/gemm/counts.h"

namespace sb::gemm {

std::vector<float> random_matrix(int64_t rows, int64_t cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(kInputLo, kInputHi);
  std::vector<float> v(static_cast<size_t>(rows * cols));
  for (float& x : v) x = u(rng);
  return v;
}

GemmWorkload::GemmWorkload(const WorkloadOptions& options, std::unique_ptr<Backend> backend)
    : options_(options),
      config_(config_for(options.size)),
      backend_(std::move(backend)),
      w_host_(random_matrix(config_.n, config_.k, options.seed)),
      prepared_(kStageCount) {
  x_ = backend_->upload(random_matrix(config_.m, config_.k, options.seed + 1),
                        {config_.m, config_.k});
}

GemmWorkload::~GemmWorkload() = default;

std::string GemmWorkload::skip_reason(size_t stage) const {
  return backend_->unsupported_reason(switches_for(stage).precision);
}

void GemmWorkload::prepare(size_t stage) {
  if (prepared_.at(stage)) return;
  Prepared p;
  p.weight = backend_->prepare_weight(w_host_, config_.n, config_.k, switches_for(stage).precision);
  // Static quantization, as a calibrated engine's: x's range is known (it is drawn from it), so
  // the int8 GEMM quantizes x against it rather than measuring x on every call.
  if (p.weight.precision == Precision::int8) {
    p.weight.input_lo = kInputLo;
    p.weight.input_hi = kInputHi;
  }
  p.y = backend_->empty({config_.m, config_.n});
  prepared_[stage] = std::move(p);
  backend_->synchronize();
}

void GemmWorkload::run(size_t stage) {
  Prepared& p = *prepared_.at(stage);
  backend_->linear(x_, p.weight, p.y);
  backend_->synchronize();
  p.ran = true;
}

std::vector<float> GemmWorkload::output(size_t stage) {
  const auto& p = prepared_.at(stage);
  if (!p || !p->ran) return {};
  return backend_->download(p->y);
}

WorkCounts GemmWorkload::counts(size_t stage) const {
  return gemm_counts(config_, switches_for(stage).precision);
}

CollectorSources GemmWorkload::sources() {
  return collector_sources(*backend_);
}

nlohmann::json GemmWorkload::params() const {
  return {
      {"m", config_.m},
      {"n", config_.n},
      {"k", config_.k},
      {"inputs", "x and W seeded uniform in [-1, 1) (seed " + std::to_string(options_.seed) + ")"}};
}

void GemmWorkload::release(size_t stage) {
  prepared_.at(stage).reset();
}

}  // namespace sb::gemm
