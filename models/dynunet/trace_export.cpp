#include "models/dynunet/trace_export.h"

#include <stdexcept>

#include "models/dynunet/volumes.h"
#include "models/io/safetensors.h"

namespace sb::dynunet {
namespace {

using Named = std::vector<std::pair<std::string, TensorData>>;

TensorData f32(std::vector<float> v, std::vector<int64_t> shape) {
  return TensorData{"F32", std::move(shape), std::move(v)};
}

// A flattened vector in param_specs() order (parameters or their gradients), cut back into
// tensors under the parameters' names and shapes.
Named by_parameter(const Params& p, const std::vector<float>& flat, const char* what) {
  Named out;
  size_t at = 0;
  for (const auto& spec : p.specs()) {
    const auto count = static_cast<size_t>(spec.count());
    if (at + count > flat.size())
      throw std::logic_error(std::string("dynunet: ") + what + " count mismatch");
    out.emplace_back(
        spec.name,
        f32(std::vector<float>(flat.begin() + at, flat.begin() + at + count), spec.shape));
    at += count;
  }
  if (at != flat.size())
    throw std::logic_error(std::string("dynunet: ") + what + " count mismatch");
  return out;
}

}  // namespace

TraceSummary export_trace(DynUnetWorkload& w, size_t stage, int64_t steps,
                          const std::filesystem::path& dir) {
  if (steps < 1) throw std::invalid_argument("trace: --steps must be at least 1");
  std::filesystem::create_directories(dir);
  const Config& c = w.config();
  // dynunet_torch.py builds the sizes' structure, three levels of any widths.
  if (c.levels() != 3 || c.kernels != std::vector<int64_t>{3, 3, 3} ||
      c.strides != std::vector<int64_t>{1, 2, 2} || c.in_channels != 1 || c.out_channels != 1)
    throw std::invalid_argument(
        "trace: dynunet_torch.py builds three levels of kernel 3 at strides 1, 2, 2 with one "
        "input and one output channel; this checkpoint (" +
        c.source + ") is another network");
  const Params& p = w.parameters();
  std::string filters;
  for (int64_t f : c.filters) filters += (filters.empty() ? "" : ",") + std::to_string(f);
  const std::map<std::string, std::string> meta{{"model", "dynunet"},
                                                {"size", c.size},
                                                {"filters", filters},
                                                {"patch", std::to_string(c.patch)},
                                                {"batch", std::to_string(c.batch)},
                                                {"eps", std::to_string(c.eps)},
                                                {"smooth", std::to_string(c.smooth)},
                                                {"lr", std::to_string(c.lr)},
                                                {"weight_decay", std::to_string(c.weight_decay)},
                                                {"steps", std::to_string(steps)},
                                                {"stage", ladder()[stage].id}};
  Named init;
  for (size_t i = 0; i < p.specs().size(); ++i)
    init.emplace_back(p.specs()[i].name, f32(p.tensors()[i].values, p.tensors()[i].shape));
  write_safetensors(dir / "init.safetensors", init, "F32", meta);

  Named batches;
  const int64_t n = c.batch * c.voxels();
  const std::vector<int64_t> shape{c.batch, 1, c.patch, c.patch, c.patch};
  for (int64_t k = 0; k < steps; ++k) {
    std::vector<float> image(static_cast<size_t>(n)), mask(image.size());
    make_volumes(w.seed(), k * c.batch, c.batch, c.patch, image, mask);
    batches.emplace_back("image." + std::to_string(k), f32(std::move(image), shape));
    batches.emplace_back("mask." + std::to_string(k), f32(std::move(mask), shape));
  }
  write_safetensors(dir / "batches.safetensors", batches, "F32", meta);

  w.prepare(stage);
  std::vector<float> grads;
  const TrainTrace t = w.train(stage, steps, &grads);
  w.release(stage);
  auto grads_meta = meta;
  grads_meta["gradients"] = "step 0, after backward, before the AdamW update";
  write_safetensors(dir / "grads_step0.safetensors", by_parameter(p, grads, "gradient"), "F32",
                    grads_meta);
  Named trace = by_parameter(p, t.params, "parameter");
  std::vector<float> loss(t.loss.begin(), t.loss.end()), dice, bce;
  for (const StepLoss& l : w.last_loss_parts()) {
    dice.push_back(static_cast<float>(l.dice));
    bce.push_back(static_cast<float>(l.bce));
  }
  trace.emplace_back("loss", f32(loss, {steps}));
  trace.emplace_back("dice", f32(dice, {steps}));
  trace.emplace_back("bce", f32(bce, {steps}));
  write_safetensors(dir / "trace.safetensors", trace, "F32", meta);
  return {steps, t.loss.front(), t.loss.back()};
}

}  // namespace sb::dynunet
