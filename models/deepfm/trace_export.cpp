#include "models/deepfm/trace_export.h"

#include <stdexcept>

#include "models/io/safetensors.h"

namespace sb::deepfm {
namespace {

using Named = std::vector<std::pair<std::string, TensorData>>;

template <class T>
TensorData as_f32(const std::vector<T>& v, std::vector<int64_t> shape) {
  return TensorData{"F32", std::move(shape), std::vector<float>(v.begin(), v.end())};
}

// The flattened parameters (Trainer::parameters order) cut back into named tensors.
Named named_params(const Params& p, const std::vector<float>& flat) {
  Named out;
  size_t at = 0;
  for (const auto& spec : p.specs()) {
    const size_t n = static_cast<size_t>(spec.count());
    if (at + n > flat.size()) throw std::logic_error("deepfm: parameter count mismatch");
    out.emplace_back(spec.name,
                     TensorData{"F32", spec.shape,
                                std::vector<float>(flat.begin() + at, flat.begin() + at + n)});
    at += n;
  }
  return out;
}

}  // namespace

TraceSummary export_trace(DeepFmWorkload& w, size_t stage, int64_t steps,
                          const std::filesystem::path& dir) {
  if (is_data_phase(stage))
    throw std::invalid_argument("trace: stage '" + ladder()[stage].id +
                                "' is a data-phase stage, not a training one");
  if (steps < 1) throw std::invalid_argument("trace: --steps must be at least 1");
  std::filesystem::create_directories(dir);
  const Config& c = w.config();
  const Params& p = w.parameters();
  const std::map<std::string, std::string> meta{{"model", "deepfm"},
                                                {"size", c.size},
                                                {"embed", std::to_string(c.embed)},
                                                {"hidden", std::to_string(c.ff_width())},
                                                {"layers", std::to_string(c.layers)},
                                                {"heads", std::to_string(c.heads)},
                                                {"dropout", std::to_string(c.dropout)},
                                                {"eps", std::to_string(c.eps)},
                                                {"lr", std::to_string(c.lr)},
                                                {"weight_decay", std::to_string(c.weight_decay)},
                                                {"batch", std::to_string(c.batch)},
                                                {"steps", std::to_string(steps)},
                                                {"smoothing", "0.1"},
                                                {"priorities", "0.3,0.2,0.5"},
                                                {"stage", ladder()[stage].id}};
  Named init;
  for (size_t i = 0; i < p.specs().size(); ++i)
    init.emplace_back(p.specs()[i].name,
                      TensorData{"F32", p.tensors()[i].shape, p.tensors()[i].values});
  write_safetensors(dir / "init.safetensors", init, "F32", meta);

  Named batches;
  BatchOptions bo;
  bo.batch_size = c.batch;
  bo.seed = w.seed();
  BatchSource source(w.dataset().train, bo);
  for (int64_t k = 0; k < steps; ++k) {
    const Batch b = source.batch(k);
    const std::string s = std::to_string(k);
    batches.emplace_back("fields." + s, as_f32(b.fields, {b.size, 4}));
    batches.emplace_back("outcome." + s, as_f32(b.outcome, {b.size, kOutcomes}));
    batches.emplace_back("direction." + s, as_f32(b.direction, {b.size}));
    batches.emplace_back("type." + s, as_f32(b.type, {b.size}));
  }
  batches.emplace_back(
      "type_weights",
      as_f32(w.dataset().type_weights, {static_cast<int64_t>(w.dataset().type_weights.size())}));
  write_safetensors(dir / "batches.safetensors", batches, "F32", meta);

  w.prepare(stage);
  const TrainTrace t = w.train(stage, steps);
  w.release(stage);
  Named trace = named_params(p, t.params);
  trace.emplace_back("loss", as_f32(t.loss, {steps}));
  trace.emplace_back("task_loss", as_f32(w.last_task_losses(), {steps, kTasks}));
  write_safetensors(dir / "trace.safetensors", trace, "F32", meta);
  return {steps, t.loss.front(), t.loss.back()};
}

}  // namespace sb::deepfm
