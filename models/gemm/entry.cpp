// The GEMM benchmark's declaration to the registry (models/registry.cpp): sizes beyond its named
// ones (MxNxK), and the options it refuses.
#include <stdexcept>

#include "models/gemm/config.h"
#include "models/gemm/entry.h"
#include "models/gemm/ladder.h"
#include "models/gemm/workload.h"
#include "models/registry.h"

namespace sb {
namespace {

void refuse_gemm_options(const WorkloadRequest& r) {
  if (const std::string bad = gemm_refused_options(r); !bad.empty())
    throw std::invalid_argument(bad);
}

}  // namespace

std::string gemm_refused_options(const WorkloadRequest& r) {
  if (!r.weights.empty() || !r.input.empty())
    return "gemm: --weights, --input and --data do not apply (it multiplies seeded random "
           "matrices of the size's M, N and K)";
  if (r.batch > 1) return "gemm: --batch does not apply (the size fixes M, N and K; choose --size)";
  return {};
}

ModelEntry gemm_entry() {
  ModelEntry m;
  m.name = "gemm";
  m.summary =
      "GEMM kernel benchmark, y = x . W^T at M = N = K or a given MxNxK, per precision against "
      "the device's ceilings (no document claim)";
  m.sizes = gemm::sizes();
  m.ladder = []() -> const std::vector<StageSpec>& { return gemm::ladder(); };
  m.make = [](const WorkloadRequest& r,
              std::unique_ptr<Backend> backend) -> std::unique_ptr<Workload> {
    refuse_gemm_options(r);
    gemm::WorkloadOptions o;
    o.size = r.size;
    o.seed = r.seed;
    return std::make_unique<gemm::GemmWorkload>(o, std::move(backend));
  };
  m.check = refuse_gemm_options;
  m.other_sizes = {"MxNxK",
                   [](const std::string& size) { return gemm::parse_shape(size).has_value(); }};
  // No peer: PyTorch's GEMMs are the ceilings' measurement, not a peer.
  return m;
}

}  // namespace sb
