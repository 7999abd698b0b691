// DeepFM's declaration to the registry (models/registry.cpp): its factory, its --data table and
// its export-steps command.
#include <sstream>
#include <stdexcept>

#include "models/deepfm/config.h"
#include "models/deepfm/ladder.h"
#include "models/deepfm/peer_script.h"
#include "models/deepfm/trace_export.h"
#include "models/deepfm/workload.h"
#include "models/model_entry.h"

namespace sb {
namespace {

std::string deepfm_export_steps(const ExportStepsArgs& a) {
  deepfm::WorkloadOptions o;
  o.size = a.size, o.seed = a.seed, o.batch = a.batch, o.weights = a.weights, o.data = a.data;
  if (a.no_dropout) o.dropout = 0.f;
  deepfm::DeepFmWorkload w(o, a.backend());
  if (const std::string why = w.skip_reason(a.stage); !why.empty())
    throw std::invalid_argument("export-steps: stage '" + a.stage_id +
                                "' does not run here: " + why);
  const auto s = deepfm::export_trace(w, a.stage, a.steps, a.out);
  std::ostringstream out;
  out << "deepfm/" << a.size << " " << deepfm::ladder()[a.stage].id << " on "
      << w.backend().device() << ": " << s.steps << " steps, loss " << s.first_loss << " -> "
      << s.last_loss << "; wrote " << a.out.string() << '\n';
  return out.str();
}

}  // namespace

ModelEntry deepfm_entry() {
  ModelEntry m;
  m.name = "deepfm";
  m.summary =
      "pharmagen DeepFM, drug-gene pairs -> three outcomes, trained with AdamW (seeds 001, "
      "002, training)";
  m.sizes = deepfm::sizes();
  m.ladder = []() -> const std::vector<StageSpec>& { return deepfm::ladder(); };
  m.make = [](const WorkloadRequest& r,
              std::unique_ptr<Backend> backend) -> std::unique_ptr<Workload> {
    auto o = from_request<deepfm::WorkloadOptions>(r);
    o.data = r.input;
    return std::make_unique<deepfm::DeepFmWorkload>(o, std::move(backend));
  };
  m.check = [](const WorkloadRequest&) {};
  m.mode = "train";
  m.peer = deepfm::peer_script();
  m.input_flag = "data";
  m.input_help = "the training table (.tsv, seven columns) instead of a seeded synthetic one";
  m.export_steps = deepfm_export_steps;
  return m;
}

}  // namespace sb
