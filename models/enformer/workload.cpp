#include "models/enformer/workload.h"

#include <cstdlib>
#include <random>
#include <stdexcept>

#include "models/backend_sources.h"
#include "models/enformer/counts.h"
#include "models/io/weight_source.h"
#include "models/ops/knobs.h"

namespace sb::enformer {
namespace {

Params load_params(const Config& c, const WorkloadOptions& o) {
  if (o.weights.empty()) return Params::random(c, o.seed);
  return Params::load(c, *open_weights(o.weights));
}

}  // namespace

Config workload_config(const WorkloadOptions& o) {
  Config c = config_for(o.size);
  if (o.batch < 0) throw std::invalid_argument("enformer: batch must be >= 1");
  c.batch = o.batch > 0 ? o.batch : 1;
  if (!o.weights.empty()) return config_from_checkpoint(c, o.weights, o.overrides);
  return with_overrides(c, o.overrides);
}

std::vector<float> random_one_hot(int64_t batch, int64_t bp, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> base(0, 3);
  std::vector<float> x(static_cast<size_t>(batch * bp * 4), 0.f);
  for (int64_t i = 0; i < batch * bp; ++i) x[i * 4 + base(rng)] = 1.f;
  return x;
}

EnformerWorkload::EnformerWorkload(const WorkloadOptions& options, std::unique_ptr<Backend> backend)
    : options_(options),
      config_(workload_config(options)),
      backend_(std::move(backend)),
      params_(load_params(config_, options)),
      models_(kStageCount),
      last_(kStageCount) {
  input_ = backend_->upload(random_one_hot(config_.batch, config_.input_bp, options_.seed + 1),
                            {config_.batch, config_.input_bp, 4});
}

EnformerWorkload::~EnformerWorkload() = default;

Precision EnformerWorkload::reduced_precision() const {
  return backend_->unsupported_reason(Precision::bf16).empty() ? Precision::bf16 : Precision::f16;
}

std::string EnformerWorkload::skip_reason(size_t stage) const {
  switch (stage) {
    case kTf32:
      return backend_->unsupported_reason(Precision::tf32);
    case kBf16:
      return backend_->unsupported_reason(reduced_precision());
    case kInt8Weights:
      return backend_->unsupported_reason(Precision::int8);
    default:
      return {};
  }
}

Switches EnformerWorkload::switches(size_t stage) const {
  std::vector<bool> applies(kStageCount);
  for (size_t s = 0; s < kStageCount; ++s) applies[s] = skip_reason(s).empty();
  Switches sw = switches_for(stage, applies, reduced_precision());
  // STAGEBENCH_ENFORMER_STEM=k15 keeps the stem's 15-tap GEMM (K 60), for A/B runs.
  if (!read_knob("STAGEBENCH_ENFORMER_STEM", true, {{"k16", true}, {"k15", false}}))
    sw.stem_taps16 = false;
  // f16 activations where every reader of them is an f16 tensor-core kernel: the f16 GEMMs and
  // the f16 relative attention (tf32 support stands for the tensor cores, as in Geneformer; its
  // kernel takes heads of dk 64 and dv a multiple of 16 up to 192, attention_relative.cpp; the
  // GEMMs that write f16 need K a multiple of 8, the pipelined kernels').
  // The int8 stage keeps fp32 activations (its quantize passes read fp32).
  sw.half_activations = sw.graph_compile && sw.fused_layernorm && sw.fused_attention &&
                        sw.precision == Precision::f16 && sw.attention == Precision::f16 &&
                        backend_->unsupported_reason(Precision::tf32).empty() && config_.dk == 64 &&
                        config_.dv() % 16 == 0 && config_.dv() <= 192;
  // STAGEBENCH_HALF_ACTIVATIONS=off (Geneformer's knob, shared): fp32 activations with a
  // conversion pass before each f16 GEMM and the attention's half copies, as before.
  if (!read_knob("STAGEBENCH_HALF_ACTIVATIONS", true,
                 {{"on", true}, {"off", false}, {"fp16-only", true}}))
    sw.half_activations = false;
  // Every fused-graph stage: the transform is per channel, in whichever dtype the pool stores.
  // On unless turned off (=off, for A/B runs): measured with enf33's other paths on an H200,
  // results/h200/lead34-2026-11-29/README.md.
  sw.pool_transform = sw.graph_compile;
  if (!read_on_off_knob("STAGEBENCH_ENFORMER_POOL_TRANSFORM")) sw.pool_transform = false;
  return sw;
}

void EnformerWorkload::prepare(size_t stage) {
  if (models_.at(stage)) return;
  const Switches sw = switches(stage);
  models_[stage] = std::make_unique<Model>(config_, params_, *backend_, sw);
  // A compiled graph plans its memory ahead of time: one call lays out the static buffers, so
  // they count as the stage's resident memory, as a compiled model's arena would.
  if (sw.graph_compile) models_[stage]->forward(input_);
  backend_->synchronize();
}

void EnformerWorkload::run(size_t stage) {
  last_.at(stage) = models_.at(stage)->forward(input_);
  backend_->synchronize();
}

Outputs EnformerWorkload::forward(size_t stage, const Tensor& input) {
  prepare(stage);
  Outputs o = models_.at(stage)->forward(input);
  backend_->synchronize();
  return o;
}

std::vector<float> EnformerWorkload::output(size_t stage) {
  const auto& o = last_.at(stage);
  if (!o) return {};
  std::vector<float> all = backend_->download(o->embeddings);
  for (const Tensor* t : {&o->human, &o->mouse}) {
    auto v = backend_->download(*t);
    all.insert(all.end(), v.begin(), v.end());
  }
  return all;
}

WorkCounts EnformerWorkload::counts(size_t stage) const {
  return forward_counts(config_, switches(stage).precision);
}

CollectorSources EnformerWorkload::sources() {
  return collector_sources(*backend_);
}

nlohmann::json EnformerWorkload::params() const {
  return {{"batch", config_.batch},
          {"input_bp", config_.input_bp},
          {"tokens", config_.tokens()},
          {"target", config_.target},
          {"dim", config_.dim},
          {"depth", config_.depth},
          {"heads", config_.heads},
          {"key_size", config_.dk},
          {"filters", config_.filters()},
          {"target_from", config_.target_from},
          {"config", describe(config_)},
          {"parameters", params_.count()},
          {"weights", options_.weights.empty()
                          ? "seeded random (seed " + std::to_string(options_.seed) + ")"
                          : options_.weights.string()}};
}

void EnformerWorkload::release(size_t stage) {
  last_.at(stage).reset();
  models_.at(stage).reset();
}

}  // namespace sb::enformer
