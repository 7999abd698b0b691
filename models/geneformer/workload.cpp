#include "models/geneformer/workload.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

#include "models/backend_sources.h"
#include "models/geneformer/checkpoint.h"
#include "models/geneformer/counts.h"
#include "models/io/weight_source.h"
#include "models/ops/knobs.h"

namespace sb::geneformer {
namespace {

Params load_params(const Config& c, const WorkloadOptions& o) {
  if (o.weights.empty()) return Params::random(c, o.seed);
  SafetensorsWeights source(weights_file(o.weights), checkpoint_prefixes());
  return Params::load(c, source);
}

}  // namespace

Config workload_config(const WorkloadOptions& o) {
  if (o.batch < 0) throw std::invalid_argument("geneformer: batch must be >= 1");
  const Config preset = config_for(o.size, o.cells ? o.cells->batch : o.batch);
  Config c = o.weights.empty() ? with_overrides(preset, o.overrides)
                               : config_from_checkpoint(preset, o.weights, o.overrides);
  if (o.cells) {
    if (o.cells->tokens > c.max_positions)
      throw std::invalid_argument("geneformer: " + std::to_string(o.cells->tokens) +
                                  " tokens exceed the model's " + std::to_string(c.max_positions) +
                                  " positions");
    c.tokens = o.cells->tokens;
  }
  return c;
}

namespace {

const char* attention_kind(const Switches& sw) {
  if (!sw.fused_attention) return "materialized scores (B x heads x S x S), fp32";
  if (sw.attention == Precision::f16) return "fused, fp16 tensor cores, fp32 softmax";
  if (sw.attention == Precision::tf32) return "fused, tf32 tensor cores, fp32 softmax";
  if (sw.attention == Precision::bf16)
    return "fused, bf16 products with fp32 accumulation where the CPU has AVX512-BF16 (oneDNN "
           "matmuls over the batch, AMX where present), fp32 softmax";
  return "fused (online softmax), fp32";
}

// What the int8 GEMMs really quantize, which depends on the backend's kernel.
std::string linear_inputs(const Switches& sw, const Backend& be, bool tensor_cores) {
  if (sw.half_activations && sw.precision == Precision::int8)
    return "s8 from the calibrated per-tensor scale, quantized from f16 activations (a pass per "
           "GEMM), mma.s8 tensor cores writing f16";
  if (sw.half_activations)
    return "f16 in memory, written by the producers (GEMM epilogues, LayerNorm, attention)";
  if (sw.precision != Precision::int8) return "fp32 in memory, converted as the kernel loads";
  if (be.name() == "cpu") return "u8 from the calibrated per-tensor range (oneDNN, VNNI)";
  return tensor_cores ? "s8 from the calibrated per-tensor scale (mma.s8 tensor cores)"
                      : "fp32: the portable kernel dequantizes int8 weights; calibration unused";
}

}  // namespace

GeneformerWorkload::GeneformerWorkload(const WorkloadOptions& options,
                                       std::unique_ptr<Backend> backend)
    : options_(options),
      config_(workload_config(options)),
      backend_(std::move(backend)),
      params_(load_params(config_, options)),
      cells_(options.cells ? *options.cells
                           : synthetic_cells(config_, config_.batch, options.seed + 1)),
      models_(kStageCount),
      last_(kStageCount),
      calibration_(kStageCount),
      effects_(kStageCount) {
  for (int32_t id : cells_.ids) {
    if (id < 0 || id >= config_.vocab)
      throw std::invalid_argument("geneformer: token id " + std::to_string(id) +
                                  " is outside the vocabulary [0, " +
                                  std::to_string(config_.vocab) + ")");
  }
  device_cells_ = upload(*backend_, cells_);
  if (options_.calibration.seed == 0) options_.calibration.seed = options_.seed + 1000;
}

GeneformerWorkload::~GeneformerWorkload() = default;

Precision GeneformerWorkload::reduced_precision() const {
  return backend_->unsupported_reason(Precision::bf16).empty() ? Precision::bf16 : Precision::f16;
}

bool GeneformerWorkload::tensor_cores() const {
  return backend_->unsupported_reason(Precision::tf32).empty();
}

std::string GeneformerWorkload::skip_reason(size_t stage) const {
  switch (stage) {
    case kEngineFp16:
      return backend_->unsupported_reason(reduced_precision());
    case kEngineInt8:
      return backend_->unsupported_reason(Precision::int8);
    default:
      return {};
  }
}

Switches GeneformerWorkload::switches(size_t stage) const {
  Switches sw = switches_for(stage, reduced_precision(), tensor_cores());
  // No fused kernel for this head width here: the stage computes attention unfused (recorded
  // in its summaries as attention_fallback) rather than failing.
  // STAGEBENCH_HALF_ACTIVATIONS=off: fp32 activations with a conversion before each f16 GEMM,
  // as before issue 27, to measure the two in one session; =fp16-only: the int8 stage keeps
  // fp32 activations (and its fp32-input quantize passes), as before 2026-11-28.
  enum class Half : uint8_t { on, off, fp16_only };
  const Half half =
      read_knob("STAGEBENCH_HALF_ACTIVATIONS", Half::on,
                {{"on", Half::on}, {"off", Half::off}, {"fp16-only", Half::fp16_only}});
  if (half == Half::off || (half == Half::fp16_only && sw.precision == Precision::int8))
    sw.half_activations = false;
  // The fused attention reads and writes f16 only on its f16 tensor-core kernel, whose heads are
  // 64 wide (attention_masked.cpp); other widths keep fp32 activations.
  if (config_.head_dim() != 64) sw.half_activations = false;
  if (sw.fused_attention && !attention_fallback().empty()) {
    sw.fused_attention = false;
    sw.half_activations = false;  // the unfused attention's GEMMs and softmax take fp32
  }
  return sw;
}

std::string GeneformerWorkload::attention_fallback() const {
  return backend_->attention_fused_unsupported(config_.head_dim());
}

Model& GeneformerWorkload::model(size_t stage) {
  if (!models_.at(stage)) prepare(stage);
  return *models_[stage];
}

void GeneformerWorkload::prepare(size_t stage) {
  if (models_.at(stage)) return;
  const Switches sw = switches(stage);
  std::optional<Calibration> cal;
  if (sw.calibrated) {
    cal = calibrate(config_, params_, *backend_, sw, options_.calibration);
    calibration_[stage] = cal->record;
  }
  models_[stage] =
      std::make_unique<Model>(config_, params_, *backend_, sw, cal ? &cal->ranges : nullptr);
  // A planned graph lays out its buffers on the first call: they are the stage's resident
  // memory, as an engine's arena is.
  if (sw.passes.plan_memory) models_[stage]->forward(device_cells_);
  backend_->synchronize();
}

void GeneformerWorkload::run(size_t stage) {
  last_.at(stage) = models_.at(stage)->forward(device_cells_);
  backend_->synchronize();
}

std::vector<float> GeneformerWorkload::output(size_t stage) {
  const auto& o = last_.at(stage);
  if (!o) return {};
  return backend_->download(o->cell_embedding);
}

WorkCounts GeneformerWorkload::counts(size_t stage) const {
  const Switches sw = switches(stage);
  const int64_t layers = sw.passes.eliminate_dead ? config_.embedding_layer() : config_.layers;
  return forward_counts(config_, sw, layers);
}

CollectorSources GeneformerWorkload::sources() {
  return collector_sources(*backend_);
}

nlohmann::json GeneformerWorkload::params() const {
  int64_t genes = 0;
  for (float m : cells_.mask) genes += m > 0.5f;
  return {
      {"batch", config_.batch},
      {"tokens", config_.tokens},
      {"gene_tokens", genes},
      {"padding_fraction",
       1.0 - static_cast<double>(genes) / static_cast<double>(cells_.mask.size())},
      {"layers", config_.layers},
      {"hidden", config_.hidden},
      {"heads", config_.heads},
      {"intermediate", config_.intermediate},
      {"vocabulary", config_.vocab},
      {"positions", config_.max_positions},
      {"head_dim", config_.head_dim()},
      {"layer_norm_eps", config_.eps},
      {"configuration",
       {{"dimensions", config_.source}, {"heads", config_.heads_from}, {"eps", config_.eps_from}}},
      {"embedding_layer", config_.embedding_layer()},
      {"parameters", params_.count()},
      {"input", options_.cells
                    ? "token ids from file"
                    : "seeded synthetic cells (seed " + std::to_string(options_.seed + 1) + ")"},
      {"weights", options_.weights.empty()
                      ? "seeded random (seed " + std::to_string(options_.seed) + ")"
                      : options_.weights.string()}};
}

const PerturbationEffects& GeneformerWorkload::effects(size_t stage) {
  auto& e = effects_.at(stage);
  if (!e) {
    const int64_t genes = options_.perturbed_genes > 0 ? options_.perturbed_genes
                                                       : std::min<int64_t>(32, config_.tokens / 4);
    e = perturbation_effects(model(stage), *backend_, cells_, 0, genes, config_.batch);
    backend_->synchronize();
  }
  return *e;
}

nlohmann::json GeneformerWorkload::graph_report(size_t stage) {
  const Switches sw = switches(stage);
  const GraphPasses& p = sw.passes;
  const double b = static_cast<double>(config_.batch), s = static_cast<double>(config_.tokens),
               d = static_cast<double>(config_.hidden),
               i = static_cast<double>(config_.intermediate),
               h = static_cast<double>(config_.heads);
  const int64_t run = p.eliminate_dead ? config_.embedding_layer() : config_.layers;
  const double layers = static_cast<double>(run), bsd = b * s * d * 4;
  nlohmann::json passes = nlohmann::json::array();
  auto add = [&](const char* name, bool on, int64_t fired, const std::string& what, double saved) {
    passes.push_back({{"pass", name},
                      {"enabled", on},
                      {"fired", on ? fired : 0},
                      {"what", what},
                      {"traffic_saved_bytes", on ? saved : 0.0}});
  };
  const double scale_pass = sw.fused_attention ? 0.0 : 2 * b * h * s * s * 4 * layers;
  add("fold_constants", p.fold_constants, 1 + run,
      "position + token-type rows folded into one table; 1/sqrt(dh) folded into Wq, bq",
      9 * bsd + scale_pass);
  add("merge_qkv", p.merge_qkv, run, "query, key, value as one [3D, D] GEMM", 2 * bsd * layers);
  add("fuse_bias_act", p.fuse_bias_act, run, "ReLU in the intermediate GEMM's epilogue",
      2 * b * s * i * 4 * layers);
  add("fuse_residual_layernorm", p.fuse_residual_layernorm, 2 * run,
      "residual add and LayerNorm in one pass", 2 * bsd * 2 * layers);
  const int64_t dead = config_.layers - config_.embedding_layer();
  add("eliminate_dead", p.eliminate_dead, dead,
      "layers after the embedding layer are not computed (only the cell embedding is asked for)",
      0.0);
  nlohmann::json out = {{"passes", passes}};
  if (p.eliminate_dead)
    out["dead_layers_removed"] = {
        {"layers", dead}, {"flops_saved", layer_flops(config_) * static_cast<double>(dead)}};
  Model& m = model(stage);
  if (p.plan_memory) {
    out["memory_plan"] = {{"requested_bytes_per_forward", m.requested_bytes()},
                          {"arena_bytes", m.planned_bytes()},
                          {"reuse", "one buffer per op site, shared by every layer and call"}};
  }
  return out;
}

nlohmann::json GeneformerWorkload::summaries(size_t stage) {
  const Switches sw = switches(stage);
  nlohmann::json s = {{"kernels",
                       {{"linear", precision_name(sw.precision)},
                        {"linear_inputs", linear_inputs(sw, *backend_, tensor_cores())},
                        {"attention", attention_kind(sw)}}}};
  if (switches_for(stage, reduced_precision(), tensor_cores()).fused_attention &&
      !sw.fused_attention)
    s["attention_fallback"] =
        "fused attention not used: " + attention_fallback() + "; scores materialized instead";
  if (sw.passes.any()) s["graph"] = graph_report(stage);
  if (!calibration_.at(stage).is_null()) s["calibration"] = calibration_[stage];
  s["perturbation"] = agreement_json(effects(stage), effects(kEager));
  return s;
}

void GeneformerWorkload::release(size_t stage) {
  last_.at(stage).reset();
  models_.at(stage).reset();
}

}  // namespace sb::geneformer
