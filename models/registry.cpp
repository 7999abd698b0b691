#include "models/registry.h"

#include <stdexcept>

#include "models/deepfm/config.h"
#include "models/deepfm/ladder.h"
#include "models/deepfm/peer_script.h"
#include "models/deepfm/workload.h"
#include "models/dynunet/config.h"
#include "models/dynunet/ladder.h"
#include "models/dynunet/peer_script.h"
#include "models/dynunet/workload.h"
#include "models/enformer/config.h"
#include "models/enformer/ladder.h"
#include "models/enformer/peer_script.h"
#include "models/enformer/workload.h"
#include "models/gemm/config.h"
#include "models/gemm/ladder.h"
#include "models/gemm/workload.h"
#include "models/geneformer/cell_file.h"
#include "models/geneformer/config.h"
#include "models/geneformer/ladder.h"
#include "models/geneformer/peer_script.h"
#include "models/geneformer/workload.h"
#include "models/ops/cpu/cpu_backend.h"
#include "models/ops/slow_op_fault.h"
#include "models/sizes.h"
#ifdef STAGEBENCH_HAVE_OPENCL
#include "models/ops/opencl/opencl_backend.h"
#endif

namespace sb {

std::string gemm_refused_options(const WorkloadRequest& r) {
  if (!r.weights.empty() || !r.input.empty())
    return "gemm: --weights, --input and --data do not apply (it multiplies seeded random "
           "matrices of the size's M, N and K)";
  if (r.batch > 1) return "gemm: --batch does not apply (the size fixes M, N and K; choose --size)";
  return {};
}

namespace {

// Options only one model takes: named when another model's request carries them.
void refuse_foreign_options(const std::string& model, const WorkloadRequest& r) {
  if (model != "geneformer" && (r.heads != 0 || r.eps))
    throw std::invalid_argument(model + ": heads and eps apply to geneformer only");
  if (model != "enformer" && (r.length != 0 || r.target != 0))
    throw std::invalid_argument(model +
                                ": length and target apply to enformer only (geneformer takes "
                                "its length from --input)");
  if ((model == "enformer" || model == "dynunet") && !r.input.empty())
    throw std::invalid_argument(model == "enformer"
                                    ? "enformer: run takes no --input (it measures seeded one-hot "
                                      "DNA; use infer)"
                                    : "dynunet: run takes no --input (it trains on seeded "
                                      "synthetic volumes)");
  if (model == "gemm")
    if (const std::string bad = gemm_refused_options(r); !bad.empty())
      throw std::invalid_argument(bad);
}

enformer::WorkloadOptions enformer_options(const WorkloadRequest& r) {
  refuse_foreign_options("enformer", r);
  enformer::WorkloadOptions o;
  o.size = r.size;
  o.seed = r.seed;
  o.weights = r.weights;
  o.overrides = {r.length, r.target};
  o.batch = r.batch > 0 ? r.batch : 1;
  return o;
}

geneformer::WorkloadOptions geneformer_options(const WorkloadRequest& r) {
  refuse_foreign_options("geneformer", r);
  geneformer::WorkloadOptions o;
  o.size = r.size;
  o.seed = r.seed;
  o.weights = r.weights;
  o.batch = r.batch;
  o.overrides = {r.heads, r.eps};
  return o;
}

}  // namespace

const std::vector<ModelEntry>& model_registry() {
  static const std::vector<ModelEntry> models{
      {"enformer",
       "Enformer, DNA -> gene expression tracks (seed 000, inference)",
       enformer::sizes(),
       []() -> const std::vector<StageSpec>& { return enformer::ladder(); },
       [](const WorkloadRequest& r, std::unique_ptr<Backend> backend) -> std::unique_ptr<Workload> {
         return std::make_unique<enformer::EnformerWorkload>(enformer_options(r),
                                                             std::move(backend));
       },
       // The length, target and batch against the tower (its pools divide the length, the
       // crop splits evenly), from the checkpoint's shapes when one is given.
       [](const WorkloadRequest& r) { enformer::workload_config(enformer_options(r)); },
       "inference",
       {},
       enformer::peer_script()},
      {"geneformer",
       "Geneformer gf-6L-10M-i2048, cells -> embeddings, in-silico perturbation (seed 003, "
       "inference)",
       geneformer::sizes(),
       []() -> const std::vector<StageSpec>& { return geneformer::ladder(); },
       [](const WorkloadRequest& r, std::unique_ptr<Backend> backend) -> std::unique_ptr<Workload> {
         geneformer::WorkloadOptions o = geneformer_options(r);
         if (!r.input.empty()) {
           const int64_t vocab = geneformer::workload_config(o).vocab;
           o.cells = geneformer::read_cells(r.input, {}, vocab);
         }
         return std::make_unique<geneformer::GeneformerWorkload>(o, std::move(backend));
       },
       // Heads and eps against the checkpoint's shapes; the --input file is read when the job
       // starts (it may be large), and named then if it is bad.
       [](const WorkloadRequest& r) { geneformer::workload_config(geneformer_options(r)); },
       "inference",
       {},
       geneformer::peer_script()},
      {"deepfm",
       "pharmagen DeepFM, drug-gene pairs -> three outcomes, trained with AdamW (seeds 001, "
       "002, training)",
       deepfm::sizes(),
       []() -> const std::vector<StageSpec>& { return deepfm::ladder(); },
       [](const WorkloadRequest& r, std::unique_ptr<Backend> backend) -> std::unique_ptr<Workload> {
         refuse_foreign_options("deepfm", r);
         deepfm::WorkloadOptions o;
         o.size = r.size;
         o.seed = r.seed;
         o.weights = r.weights;
         o.batch = r.batch;
         o.data = r.input;
         return std::make_unique<deepfm::DeepFmWorkload>(o, std::move(backend));
       },
       [](const WorkloadRequest& r) { refuse_foreign_options("deepfm", r); },
       "train",
       {},
       deepfm::peer_script()},
      {"dynunet",
       "CytoDL DynUNet 3-D segmentation, volumes -> masks, trained with AdamW; inference timed "
       "per stage (seed 004, training)",
       dynunet::sizes(),
       []() -> const std::vector<StageSpec>& { return dynunet::ladder(); },
       [](const WorkloadRequest& r, std::unique_ptr<Backend> backend) -> std::unique_ptr<Workload> {
         refuse_foreign_options("dynunet", r);
         dynunet::WorkloadOptions o;
         o.size = r.size;
         o.seed = r.seed;
         o.weights = r.weights;
         o.batch = r.batch;
         return std::make_unique<dynunet::DynUnetWorkload>(o, std::move(backend));
       },
       [](const WorkloadRequest& r) { refuse_foreign_options("dynunet", r); },
       "train",
       {},
       dynunet::peer_script()},
      {"gemm",
       "GEMM kernel benchmark, y = x . W^T at M = N = K or a given MxNxK, per precision against "
       "the device's ceilings (no document claim)",
       gemm::sizes(),
       []() -> const std::vector<StageSpec>& { return gemm::ladder(); },
       [](const WorkloadRequest& r, std::unique_ptr<Backend> backend) -> std::unique_ptr<Workload> {
         refuse_foreign_options("gemm", r);
         gemm::WorkloadOptions o;
         o.size = r.size;
         o.seed = r.seed;
         return std::make_unique<gemm::GemmWorkload>(o, std::move(backend));
       },
       [](const WorkloadRequest& r) { refuse_foreign_options("gemm", r); },
       "inference",
       {"MxNxK", [](const std::string& size) { return gemm::parse_shape(size).has_value(); }},
       std::nullopt},  // PyTorch's GEMMs are the ceilings' measurement, not a peer
  };
  return models;
}

const ModelEntry& find_model(const std::string& name) {
  std::string known;
  for (const auto& m : model_registry()) {
    if (m.name == name) return m;
    known += (known.empty() ? "" : ", ") + m.name;
  }
  throw std::invalid_argument("unknown model '" + name + "' (models: " + known + ")");
}

void check_size(const ModelEntry& m, const std::string& size) {
  for (const auto& s : m.sizes)
    if (s == size) return;
  if (m.other_sizes.accepts && m.other_sizes.accepts(size)) return;
  throw_unknown_size(m.name, size, m.sizes, m.other_sizes.accepts ? m.other_sizes.form : "");
}

std::vector<size_t> resolve_stages(const ModelEntry& m, const std::vector<std::string>& ids) {
  const auto& ladder = m.ladder();
  std::vector<size_t> out;
  if (ids.empty()) {
    for (size_t i = 0; i < ladder.size(); ++i) out.push_back(i);
    return out;
  }
  for (const auto& id : ids) out.push_back(find_stage(ladder, id, m.name));
  return out;
}

std::vector<std::string> backend_names() {
#ifdef STAGEBENCH_HAVE_OPENCL
  return {"cpu", "opencl"};
#else
  return {"cpu"};
#endif
}

std::unique_ptr<Backend> make_backend(const std::string& name, const std::string& device) {
  // A bad STAGEBENCH_SLOW_OP threw at the op's first call, inside a stage: every stage failed
  // (exit 1) as if measured. Read here, it is bad input before anything runs, as
  // STAGEBENCH_FAULT is.
  slow_op_fault();
  if (name == "cpu") return make_cpu_backend();
#ifdef STAGEBENCH_HAVE_OPENCL
  if (name == "opencl") return make_opencl_backend(device);
#else
  if (name == "opencl")
    throw std::invalid_argument(
        "backend 'opencl': this build has no OpenCL (rebuild with "
        "ocl-icd-opencl-dev and libclblast-dev installed)");
#endif
  throw std::invalid_argument("unknown backend '" + name + "' (cpu, opencl, all)");
}

LibraryTuneReport tune_library(const LibraryTuneOptions& options) {
#ifdef STAGEBENCH_HAVE_OPENCL
  return tune_opencl_library(options);
#else
  (void)options;
  throw std::invalid_argument("tune: this build has no OpenCL, whose CLBlast it tunes");
#endif
}

}  // namespace sb
