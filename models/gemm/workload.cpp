#include "models/gemm/workload.h"

#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>

#include "models/backend_sources.h"
#include "models/gemm/counts.h"
#include "models/ops/knobs.h"

namespace sb::gemm {

std::vector<float> random_matrix(int64_t rows, int64_t cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(kInputLo, kInputHi);
  std::vector<float> v(static_cast<size_t>(rows * cols));
  for (float& x : v) x = u(rng);
  return v;
}

namespace {

// STAGEBENCH_GEMM_F16_INPUT: on (unset, "" or "on") or off (the fp16 stage converts x at every
// call, as before gemm34, for A/B runs); anything else throws, from params(), before a stage runs.
bool f16_input_requested() {
  return read_on_off_knob("STAGEBENCH_GEMM_F16_INPUT");
}

}  // namespace

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
  if (stage == kFp16) p.x = f16_input(p.weight, p.y);
  prepared_[stage] = std::move(p);
  backend_->synchronize();
}

void GemmWorkload::run(size_t stage) {
  Prepared& p = *prepared_.at(stage);
  backend_->linear(p.x.defined() ? p.x : x_, p.weight, p.y);
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

// The fp16 stage's x as a half-precision model's layer reads it: in f16, written so by its
// producer (issue 27: no conversion pass left in a half-precision stage), as torch.matmul on f16
// tensors reads it. Converted here once, untimed (Backend::convert, rounding to nearest even: the
// bits the per-call conversion writes), then one untimed product with it, which a backend whose
// kernels take no f16 x refuses (PoCL's register-staged GEMMs). Undefined (x stays fp32,
// converted at every call) then, where STAGEBENCH_GEMM_F16_INPUT=off, or where K is not a
// multiple of 8; params' fp16_input says so.
Tensor GemmWorkload::f16_input(const Weight& w, Tensor& y) {
  if (!f16_input_requested() || config_.k % 8 != 0) return {};
  try {
    Tensor xh = backend_->empty({config_.m, config_.k}, DType::f16);
    backend_->convert(x_, xh);
    backend_->linear(xh, w, y);
    backend_->synchronize();
    return xh;
  } catch (const std::invalid_argument&) {  // f16 activations refused: no f16 pipeline here
    return {};                              // (the stage's kernel list shows the pass)
  }
}

nlohmann::json GemmWorkload::params() const {
  nlohmann::json p = {
      {"m", config_.m},
      {"n", config_.n},
      {"k", config_.k},
      {"inputs", "x and W seeded uniform in [-1, 1) (seed " + std::to_string(options_.seed) + ")"}};
  p["fp16_input"] =
      f16_input_requested() && config_.k % 8 == 0
          ? "f16 where the backend's GEMMs read f16 x (else fp32, converted at every call), "
            "converted once before the stage"
          : std::string("fp32, converted to f16 at every call (") +
                (config_.k % 8 != 0 ? "K is not a multiple of 8"
                                    : "STAGEBENCH_GEMM_F16_INPUT=off") +
                ")";
  return p;
}

void GemmWorkload::release(size_t stage) {
  prepared_.at(stage).reset();
}

}  // namespace sb::gemm
