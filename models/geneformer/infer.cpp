#include "models/geneformer/infer.h"

#include <cmath>
#include <stdexcept>

#include "models/geneformer/workload.h"
#include "models/io/npy.h"
#include "models/io/safetensors.h"

namespace sb::geneformer {
namespace {

TensorData read_tensor(const std::filesystem::path& path, const std::string& preferred,
                       bool optional) {
  const std::string ext = path.extension().string();
  if (ext == ".npy") return read_npy(path);
  if (ext != ".safetensors")
    throw std::invalid_argument(path.string() + ": expected a .npy or .safetensors file");
  const SafetensorsFile f = SafetensorsFile::open(path);
  if (f.contains(preferred)) return f.read(preferred);
  if (optional) return {};
  const auto names = f.names();
  if (names.size() == 1) return f.read(names.front());
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw std::invalid_argument(path.string() + ": several tensors and none named '" + preferred +
                              "' (" + list + ")");
}

Cells read_cells(const InferRequest& r, int64_t vocab) {
  const TensorData ids = read_tensor(r.input, "input_ids", false);
  if (ids.shape.empty() || ids.shape.size() > 2)
    throw std::invalid_argument("input " + r.input.string() + ": token ids of shape " +
                                shape_to_string(ids.shape) + " are not [B, S] or [S]");
  const int64_t batch = ids.shape.size() == 2 ? ids.shape[0] : 1, tokens = ids.shape.back();
  std::vector<int32_t> v(ids.values.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const float x = ids.values[i];
    if (x != std::floor(x))
      throw std::invalid_argument("input " + r.input.string() + ": value " + std::to_string(x) +
                                  " at " + std::to_string(i) + " is not a token id");
    v[i] = static_cast<int32_t>(x);
  }
  TensorData mask;
  if (!r.mask.empty())
    mask = read_tensor(r.mask, "attention_mask", false);
  else if (r.input.extension() == ".safetensors")
    mask = read_tensor(r.input, "attention_mask", true);
  if (!mask.values.empty() && mask.shape != ids.shape &&
      !(mask.shape.size() == 1 && ids.shape.size() == 2 && batch == 1))
    throw std::invalid_argument("attention mask of shape " + shape_to_string(mask.shape) +
                                " does not match the token ids' " + shape_to_string(ids.shape));
  return cells_from_ids(std::move(v), mask.values, batch, tokens, vocab);
}

TensorData host(Backend& be, const Tensor& t) {
  return {"F32", t.shape(), be.download(t)};
}

}  // namespace

InferSummary run_inference(const InferRequest& r, std::unique_ptr<Backend> backend) {
  if (r.output.extension() != ".safetensors")
    throw std::invalid_argument("output " + r.output.string() +
                                ": must be a .safetensors file (it holds every layer)");
  const Config probe = config_for(r.size);
  WorkloadOptions o;
  o.size = r.size;
  o.seed = r.seed;
  o.weights = r.weights;
  o.cells = read_cells(r, probe.vocab);
  InferSummary sum{r.size, ladder()[stage_index(r.stage)].id, o.cells->batch, o.cells->tokens,
                   probe.layers};
  const size_t stage = stage_index(r.stage);
  GeneformerWorkload w(o, std::move(backend));
  const std::string skip = w.skip_reason(stage);
  if (!skip.empty())
    throw std::invalid_argument("stage '" + sum.stage + "' does not apply on " +
                                w.backend().name() + ": " + skip);
  if (!r.export_weights.empty()) {
    std::vector<std::pair<std::string, TensorData>> tensors;
    for (const auto& spec : param_specs(w.config())) {
      const HostTensor& t = w.parameters().at(spec.name);
      tensors.emplace_back(spec.name, TensorData{"F32", t.shape, t.values});
    }
    write_safetensors(r.export_weights, tensors, "F32",
                      {{"model", "geneformer"}, {"size", r.size}});
  }
  Backend& be = w.backend();
  Model& m = w.model(stage);
  const Outputs out = m.forward(upload(be, w.cells()), /*all_layers=*/true);
  be.synchronize();
  std::vector<std::pair<std::string, TensorData>> tensors;
  for (size_t l = 0; l < out.hidden.size(); ++l)
    tensors.emplace_back("hidden_states." + std::to_string(l), host(be, out.hidden[l]));
  tensors.emplace_back("cell_embedding", host(be, out.cell_embedding));
  write_safetensors(r.output, tensors, "F32",
                    {{"model", "geneformer"},
                     {"size", r.size},
                     {"stage", sum.stage},
                     {"embedding_layer", std::to_string(w.config().embedding_layer())},
                     {"backend", be.name()},
                     {"device", be.device()}});
  return sum;
}

}  // namespace sb::geneformer
