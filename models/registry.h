#pragma once
// The documented models the CLI knows, their sizes and ladders, and the backends.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "contract/peer_script.h"
#include "contract/workload.h"
#include "contract/workload_request.h"
#include "models/ops/backend.h"
#include "models/ops/opencl/opencl_backend.h"  // tune_library's types (no OpenCL in it)

namespace sb {

// Sizes a model takes beyond its named ones: the form they follow ("MxNxK"), for messages, and
// the test.
struct SizeForm {
  std::string form;
  std::function<bool(const std::string&)> accepts;
};

struct ModelEntry {
  std::string name;
  std::string summary;
  std::vector<std::string> sizes;
  std::function<const std::vector<StageSpec>&()> ladder;
  std::function<std::unique_ptr<Workload>(const WorkloadRequest&, std::unique_ptr<Backend>)> make;
  // The request checked without a device or a measurement: the options the model takes and the
  // shapes they give (a length the pools do not divide, a checkpoint's heads). Throws
  // std::invalid_argument naming the problem. `run` and `sweep` call it for every job before
  // anything is measured, so a sweep never stops hours in on a job that could not start; make
  // refuses the same requests.
  std::function<void(const WorkloadRequest&)> check;
  std::string mode = "inference";  // what its workloads' run() is: "inference" or "train"
  SizeForm other_sizes{};          // none unless set
  std::optional<PeerScript> peer;  // its PyTorch reference script, if it has one
};

const std::vector<ModelEntry>& model_registry();
// Why the gemm benchmark refuses a request's options (--weights, --input/--data, a batch above
// 1), "" when it takes them: checked by run and sweep before anything is measured, and by the
// registry's factory.
std::string gemm_refused_options(const WorkloadRequest& r);
const ModelEntry& find_model(const std::string& name);  // throws, listing the known models
// Throws std::invalid_argument "<model>: unknown size 'x' (sizes: ...)".
void check_size(const ModelEntry& m, const std::string& size);
// Stage ids (or ladder indices) -> ladder positions, all of them when `ids` is empty. Throws
// std::invalid_argument "<model>: unknown stage 'x' (stages: ...)".
std::vector<size_t> resolve_stages(const ModelEntry& m, const std::vector<std::string>& ids);
std::vector<std::string> backend_names();  // "cpu", and "opencl" when built
std::unique_ptr<Backend> make_backend(const std::string& name, const std::string& device);
// `stagebench tune`: the OpenCL backend's CLBlast tuned on one device (opencl_backend.h).
LibraryTuneReport tune_library(const LibraryTuneOptions& options);

}  // namespace sb
