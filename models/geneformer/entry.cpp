// Geneformer's declaration to the registry (models/registry.cpp): its options, factory, check
// and infer command.
#include <sstream>

#include "models/geneformer/cell_file.h"
#include "models/geneformer/config.h"
#include "models/geneformer/infer.h"
#include "models/geneformer/ladder.h"
#include "models/geneformer/peer_script.h"
#include "models/geneformer/workload.h"
#include "models/model_entry.h"

namespace sb {
namespace {

geneformer::ConfigOverrides geneformer_overrides(const OptionValues& options) {
  geneformer::ConfigOverrides o;
  o.heads = option_integer(options, "heads", 0);
  if (const auto eps = option_number(options, "eps")) o.eps = static_cast<float>(*eps);
  return o;
}

geneformer::WorkloadOptions geneformer_options(const WorkloadRequest& r) {
  auto o = from_request<geneformer::WorkloadOptions>(r);
  o.overrides = geneformer_overrides(r.options);
  return o;
}

InferOutcome geneformer_infer(const InferArgs& a) {
  geneformer::InferRequest r;
  r.weights = a.weights, r.input = a.input, r.mask = option_text(a.options, "mask");
  r.output = a.output, r.export_weights = a.export_weights, r.seed = a.seed;
  r.overrides = geneformer_overrides(a.options);
  if (!a.size.empty()) r.size = a.size;
  if (!a.stage.empty()) r.stage = a.stage;
  const auto s = geneformer::run_inference(r, a.backend());
  std::ostringstream out;
  out << "geneformer/" << s.size << " stage " << s.stage << ": batch " << s.batch << " x "
      << s.tokens << " tokens, " << s.layers << " layers -> " << r.output.string() << '\n'
      << "configuration: " << s.configuration << '\n';
  return {out.str(), s.non_finite};
}

}  // namespace

ModelEntry geneformer_entry() {
  ModelEntry m;
  m.name = "geneformer";
  m.summary =
      "Geneformer gf-6L-10M-i2048, cells -> embeddings, in-silico perturbation (seed 003, "
      "inference)";
  m.sizes = geneformer::sizes();
  m.ladder = []() -> const std::vector<StageSpec>& { return geneformer::ladder(); };
  m.make = [](const WorkloadRequest& r,
              std::unique_ptr<Backend> backend) -> std::unique_ptr<Workload> {
    geneformer::WorkloadOptions o = geneformer_options(r);
    if (!r.input.empty()) {
      const int64_t vocab = geneformer::workload_config(o).vocab;
      o.cells = geneformer::read_cells(r.input, {}, vocab);
    }
    return std::make_unique<geneformer::GeneformerWorkload>(o, std::move(backend));
  };
  // Heads and eps against the checkpoint's shapes; the --input file is read when the job
  // starts (it may be large), and named then if it is bad.
  m.check = [](const WorkloadRequest& r) { geneformer::workload_config(geneformer_options(r)); };
  m.peer = geneformer::peer_script();
  m.options = {
      {"heads",
       "attention heads of --weights (default: config.json beside it, else hidden/64)",
       OptionType::integer,
       {.run = true, .sweep = true, .infer = true},
       "heads"},
      {"eps",
       "LayerNorm eps of --weights (default: config.json, else 1e-12)",
       OptionType::number,
       {.run = true, .sweep = true, .infer = true},
       "layer_norm_eps",
       true},
      {"mask",
       "attention mask [B,S] of 0/1 (default: the input file's 'attention_mask', else ids != 0)",
       OptionType::existing_file,
       {.run = false, .sweep = false, .infer = true}},
  };
  m.input_help =
      "token ids [B,S] (.npy/.safetensors, with 'attention_mask' when the file holds one) "
      "instead of seeded synthetic cells";
  m.weights_help = "any BERT, its configuration read from the shapes";
  m.infer_input_help = "token ids [B,S] (.npy/.safetensors)";
  m.infer_size_help = "full";
  m.infer = geneformer_infer;
  return m;
}

}  // namespace sb
