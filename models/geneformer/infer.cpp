#include "models/geneformer/infer.h"

#include <cmath>
#include <stdexcept>

#include "models/geneformer/cell_file.h"
#include "models/geneformer/checkpoint.h"
#include "models/geneformer/workload.h"
#include "models/io/safetensors.h"
#include "models/io/weights_export.h"

namespace sb::geneformer {
namespace {

TensorData host(Backend& be, const Tensor& t) {
  return {"F32", t.shape(), be.download(t)};
}

}  // namespace

InferSummary run_inference(const InferRequest& r, std::unique_ptr<Backend> backend) {
  if (r.output.extension() != ".safetensors")
    throw std::invalid_argument("output " + r.output.string() +
                                ": must be a .safetensors file (it holds every layer)");
  WorkloadOptions o;
  o.size = r.size;
  o.seed = r.seed;
  o.weights = r.weights;
  o.overrides = r.overrides;
  const Config probe = workload_config(o);  // the vocabulary the ids are checked against
  o.cells = read_cells(r.input, r.mask, probe.vocab);
  InferSummary sum{
      r.size, ladder()[stage_index(r.stage)].id, o.cells->batch, o.cells->tokens, probe.layers, {},
      {}};
  const size_t stage = stage_index(r.stage);
  GeneformerWorkload w(o, std::move(backend));
  sum.configuration = describe(w.config());
  const std::string skip = w.skip_reason(stage);
  if (!skip.empty())
    throw std::invalid_argument("stage '" + sum.stage + "' does not apply on " +
                                w.backend().name() + ": " + skip);
  if (!r.export_weights.empty())
    export_weights(r.export_weights, param_specs(w.config()), w.parameters(), "geneformer", r.size);
  Backend& be = w.backend();
  Model& m = w.model(stage);
  const Outputs out = m.forward(upload(be, w.cells()), /*all_layers=*/true);
  be.synchronize();
  std::vector<std::pair<std::string, TensorData>> tensors;
  for (size_t l = 0; l < out.hidden.size(); ++l)
    tensors.emplace_back("hidden_states." + std::to_string(l), host(be, out.hidden[l]));
  tensors.emplace_back("cell_embedding", host(be, out.cell_embedding));
  sum.non_finite = first_non_finite(tensors);
  write_safetensors(r.output, tensors, "F32",
                    {{"model", "geneformer"},
                     {"size", r.size},
                     {"stage", sum.stage},
                     {"embedding_layer", std::to_string(w.config().embedding_layer())},
                     {"configuration", sum.configuration},
                     {"backend", be.name()},
                     {"device", be.device()}});
  return sum;
}

}  // namespace sb::geneformer
