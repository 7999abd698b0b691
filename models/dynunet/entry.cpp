// DynUNet's declaration to the registry (models/registry.cpp): its factory and its export-steps
// command.
#include <sstream>
#include <stdexcept>

#include "models/dynunet/config.h"
#include "models/dynunet/ladder.h"
#include "models/dynunet/peer_script.h"
#include "models/dynunet/trace_export.h"
#include "models/dynunet/workload.h"
#include "models/model_entry.h"

namespace sb {
namespace {

std::string dynunet_export_steps(const ExportStepsArgs& a) {
  if (!a.data.empty() || a.no_dropout)
    throw std::invalid_argument("export-steps: dynunet takes no --data or --no-dropout");
  dynunet::WorkloadOptions o;
  o.size = a.size, o.seed = a.seed, o.batch = a.batch, o.weights = a.weights;
  dynunet::DynUnetWorkload w(o, a.backend());
  if (const std::string why = w.skip_reason(a.stage); !why.empty())
    throw std::invalid_argument("export-steps: stage '" + a.stage_id +
                                "' does not run here: " + why);
  const auto s = dynunet::export_trace(w, a.stage, a.steps, a.out);
  std::ostringstream out;
  out << "dynunet/" << a.size << " " << dynunet::ladder()[a.stage].id << " on "
      << w.backend().device() << ": " << s.steps << " steps, loss " << s.first_loss << " -> "
      << s.last_loss << "; wrote " << a.out.string() << '\n';
  return out.str();
}

}  // namespace

ModelEntry dynunet_entry() {
  ModelEntry m;
  m.name = "dynunet";
  m.summary =
      "CytoDL DynUNet 3-D segmentation, volumes -> masks, trained with AdamW; inference timed "
      "per stage (seed 004, training)";
  m.sizes = dynunet::sizes();
  m.ladder = []() -> const std::vector<StageSpec>& { return dynunet::ladder(); };
  m.make = [](const WorkloadRequest& r,
              std::unique_ptr<Backend> backend) -> std::unique_ptr<Workload> {
    if (!r.input.empty())
      throw std::invalid_argument(
          "dynunet: run takes no --input (it trains on seeded synthetic volumes)");
    return std::make_unique<dynunet::DynUnetWorkload>(from_request<dynunet::WorkloadOptions>(r),
                                                      std::move(backend));
  };
  m.check = [](const WorkloadRequest& r) {
    if (!r.input.empty())
      throw std::invalid_argument(
          "dynunet: run takes no --input (it trains on seeded synthetic volumes)");
  };
  m.mode = "train";
  m.peer = dynunet::peer_script();
  m.export_steps_note = "for dynunet step 0's gradients";
  m.export_steps = dynunet_export_steps;
  return m;
}

}  // namespace sb
