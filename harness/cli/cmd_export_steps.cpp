// stagebench export-steps: a training model's steps written out for a reference
// implementation (scripts/reference/*_torch.py check). It was `trace` until `run --timeline`
// made "trace" mean a timeline; `trace` now says so and exits 2.
#include <iostream>

#include "harness/cli/commands.h"
#include "harness/cli/job.h"
#include "harness/cli/model_flags.h"
#include "harness/cli/option_checks.h"
#include "models/registry.h"

namespace sb::cli {

void add_export_steps(CLI::App& app, int& exit_code) {
  const auto exports = [](const ModelEntry& m) { return static_cast<bool>(m.export_steps); };
  std::string notes, scripts;
  for (const ModelEntry& m : model_registry()) {
    if (!exports(m)) continue;
    if (!m.export_steps_note.empty()) notes += ", and " + m.export_steps_note;
    if (m.peer) scripts += (scripts.empty() ? "scripts/reference/" : " and ") + m.peer->file;
  }
  auto* cmd = app.add_subcommand(
      "export-steps",
      "Train a few steps from the initial parameters and write parameters, batches and the "
      "loss curve" +
          notes + (scripts.empty() ? "" : " (for " + scripts + " check)"));
  struct Args {
    std::string model, size = "tiny", backend = "cpu", device, stage = "baseline";
    std::filesystem::path weights, data, out;
    uint64_t seed = 1;
    int64_t steps = 20, batch = 0;
    bool no_dropout = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("model", a->model, "Model (" + model_names(exports) + ")")->required();
  cmd->add_option("--size", a->size, "tiny, small or full")->capture_default_str();
  cmd->add_option("--stage", a->stage, "training stage (id or index)")->capture_default_str();
  cmd->add_option("--steps", a->steps, "optimizer steps")
      ->check(kNonNegativeInteger)
      ->capture_default_str();
  cmd->add_option("--batch", a->batch, "batch (0: the size's)")->check(kNonNegativeInteger);
  cmd->add_option("--backend", a->backend, "cpu or opencl")->capture_default_str();
  cmd->add_option("--device", a->device, "OpenCL device (name substring or P:D)");
  cmd->add_option("--seed", a->seed, "seed of weights, table and batches")
      ->check(kNonNegativeUnsigned)
      ->capture_default_str();
  cmd->add_option("--weights", a->weights, "initial parameters (.safetensors, reference names)")
      ->check(kNonEmpty);
  cmd->add_option("--data", a->data, "the training table (.tsv) instead of a synthetic one")
      ->check(kNonEmpty);
  cmd->add_flag("--no-dropout", a->no_dropout,
                "train without dropout (the reference check: PyTorch draws other masks)");
  cmd->add_option("--out", a->out, "output folder")->required()->check(kNonEmpty);
  cmd->callback([a, &exit_code] {
    const ModelEntry& m = find_model(a->model);
    if (m.mode != "train")
      throw std::invalid_argument("export-steps: " + m.name + " is not trained");
    check_size(m, a->size);
    if (a->backend == "cpu" && !a->device.empty())
      throw std::invalid_argument("--device '" + a->device +
                                  "' names an OpenCL device, and the cpu backend has none");
    const size_t stage = resolve_stages(m, {a->stage}).front();
    if (!m.export_steps)
      throw std::invalid_argument("export-steps: " + m.name + " has no export-steps command");
    ExportStepsArgs args;
    args.size = a->size, args.stage_id = a->stage, args.stage = stage;
    args.steps = a->steps, args.batch = a->batch, args.seed = a->seed;
    args.weights = a->weights, args.data = a->data, args.out = a->out;
    args.no_dropout = a->no_dropout;
    args.backend = [a] { return backend_or_bad_input(a->backend, a->device); };
    std::cout << m.export_steps(args);
    exit_code = 0;
  });
}

// The old name: a user's script that still calls it learns the new one, whatever its options.
void add_trace_renamed(CLI::App& app) {
  auto* cmd = app.add_subcommand("trace", "");  // no description: left out of --help
  cmd->allow_extras();
  cmd->callback([] {
    throw std::invalid_argument(
        "`trace` is now `export-steps` (a training model's steps for the PyTorch check); a "
        "timeline of kernels and host phases is `run --timeline FILE`");
  });
}

}  // namespace sb::cli
