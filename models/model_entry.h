#pragma once
// What a model declares of itself where it registers (models/<name>/entry.cpp, one line in
// models/registry.cpp): its sizes, ladder, options, factory and checks, and the commands beyond
// `run` it takes part in. The CLI builds its options, help and dispatch from these declarations
// and names no model itself.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "contract/model_options.h"
#include "contract/peer_script.h"
#include "contract/workload.h"
#include "contract/workload_request.h"
#include "models/ops/backend.h"

namespace sb {

// Sizes a model takes beyond its named ones: the form they follow ("MxNxK"), for messages, and
// the test.
struct SizeForm {
  std::string form;
  std::function<bool(const std::string&)> accepts;
};

// The backend a command makes when the model asks for it: after the model has checked what it
// can without one, so that a bad option is named before a missing device.
using BackendMaker = std::function<std::unique_ptr<Backend>()>;

// `stagebench infer`: one forward on the user's input.
struct InferArgs {
  std::filesystem::path weights, input, output, export_weights;
  std::string stage, size;  // empty: the model's defaults
  uint64_t seed = 1;
  OptionValues options;  // the model's own options of scope infer that were given
  BackendMaker backend;
};
struct InferOutcome {
  std::string report;      // what the command prints
  std::string non_finite;  // the first NaN or Inf of the outputs, "" when all are finite
};

// `stagebench export-steps`: a training model's first steps written for the reference check.
struct ExportStepsArgs {
  std::string size, stage_id;
  size_t stage = 0;  // the ladder position of stage_id
  int64_t steps = 0, batch = 0;
  uint64_t seed = 1;
  std::filesystem::path weights, data, out;
  bool no_dropout = false;
  BackendMaker backend;
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
  // refuses the same requests. Options another model declared are refused before either runs
  // (models/registry.cpp).
  std::function<void(const WorkloadRequest&)> check;
  std::string mode = "inference";  // what its workloads' run() is: "inference" or "train"
  SizeForm other_sizes{};          // none unless set
  std::optional<PeerScript> peer;  // its PyTorch reference script, if it has one
  std::vector<OptionSpec> options{};
  // Said after "<name>: a and b apply to <model> only" when another model is given them.
  std::string options_note{};
  // What --input (or --data, input_flag) is for this model, in run's help; empty: it takes none
  // and its check says why.
  std::string input_flag = "input";
  std::string input_help{};
  std::string weights_help{};  // said of --weights in run's help beyond the common text
  // `infer`: what its --input and --size are; the command itself, if it has one.
  std::string infer_input_help{}, infer_size_help{};
  std::function<InferOutcome(const InferArgs&)> infer{};
  // `export-steps`, for a trained model: what it writes beyond the common files, and the
  // command itself.
  std::string export_steps_note{};
  std::function<std::string(const ExportStepsArgs&)> export_steps{};
};

}  // namespace sb
