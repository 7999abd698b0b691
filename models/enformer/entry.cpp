// Enformer's declaration to the registry (models/registry.cpp): its options, factory, check and
// infer command.
#include <sstream>
#include <stdexcept>

#include "models/enformer/config.h"
#include "models/enformer/infer.h"
#include "models/enformer/ladder.h"
#include "models/enformer/peer_script.h"
#include "models/enformer/workload.h"
#include "models/model_entry.h"

namespace sb {
namespace {

const char kEnformerTargetHelp[] =
    "centre tokens kept after the transformer (default: config.json's target_length, else the "
    "size's at its length, else 896/1536 of the tokens)";

enformer::WorkloadOptions enformer_options(const WorkloadRequest& r) {
  if (!r.input.empty())
    throw std::invalid_argument(
        "enformer: run takes no --input (it measures seeded one-hot DNA; use infer)");
  auto o = from_request<enformer::WorkloadOptions>(r);
  o.overrides = {option_integer(r.options, "length", 0), option_integer(r.options, "target", 0)};
  return o;
}

InferOutcome enformer_infer(const InferArgs& a) {
  enformer::InferRequest r;
  r.weights = a.weights, r.input = a.input, r.output = a.output;
  r.export_weights = a.export_weights, r.seed = a.seed, r.size = a.size;
  r.target = option_integer(a.options, "target", 0);
  if (!a.stage.empty()) r.stage = a.stage;
  const auto s = enformer::run_inference(r, a.backend());
  std::ostringstream out;
  out << "enformer/" << s.size << " stage " << s.stage << ": batch " << s.batch << " x " << s.length
      << " bp -> " << r.output.string() << '\n'
      << "configuration: " << s.config << '\n';
  return {out.str(), s.non_finite};
}

}  // namespace

ModelEntry enformer_entry() {
  ModelEntry m;
  m.name = "enformer";
  m.summary = "Enformer, DNA -> gene expression tracks (seed 000, inference)";
  m.sizes = enformer::sizes();
  m.ladder = []() -> const std::vector<StageSpec>& { return enformer::ladder(); };
  m.make = [](const WorkloadRequest& r,
              std::unique_ptr<Backend> backend) -> std::unique_ptr<Workload> {
    return std::make_unique<enformer::EnformerWorkload>(enformer_options(r), std::move(backend));
  };
  // The length, target and batch against the tower (its pools divide the length, the crop
  // splits evenly), from the checkpoint's shapes when one is given.
  m.check = [](const WorkloadRequest& r) { enformer::workload_config(enformer_options(r)); };
  m.peer = enformer::peer_script();
  m.options = {
      {"length",
       "input length in bp, a multiple of the pools' factor (128 for the published tower; "
       "default: the size's)",
       OptionType::integer,
       {.run = true, .sweep = true, .infer = false},
       "input_bp"},
      {"target",
       kEnformerTargetHelp,
       OptionType::integer,
       {.run = true, .sweep = true, .infer = true},
       "target"},
  };
  m.options_note = " (geneformer takes its length from --input)";
  m.infer_input_help = "one-hot [B,L,4] or base indices [B,L]";
  m.infer_size_help = "the input length's, else full's with --weights";
  m.infer = enformer_infer;
  return m;
}

}  // namespace sb
