#include <iostream>

#include "harness/cli/commands.h"
#include "harness/cli/job.h"
#include "harness/cli/model_flags.h"
#include "harness/cli/option_checks.h"
#include "harness/cli/output_path.h"
#include "models/registry.h"

namespace sb::cli {
namespace {

// "infer m: --a and --b do not apply" for the options given that the model does not declare for
// infer, "" when there are none.
std::string infer_foreign_options(const ModelEntry& m, const OptionValues& given) {
  std::vector<std::string> foreign;
  for (const auto& [name, value] : given) {
    bool mine = false;
    for (const OptionSpec& o : m.options) mine = mine || (o.name == name && o.scope.infer);
    if (!mine) foreign.push_back("--" + name);
  }
  if (foreign.empty()) return {};
  std::string list;
  for (size_t i = 0; i < foreign.size(); ++i)
    list += (i == 0 ? "" : i + 1 == foreign.size() ? " and " : ", ") + foreign[i];
  return "infer " + m.name + ": " + list +
         (foreign.size() == 1 ? " does not apply" : " do not apply");
}

}  // namespace

void add_infer(CLI::App& app, int& exit_code) {
  auto* cmd =
      app.add_subcommand("infer", "One forward on your own input and weights; writes every output");
  struct Args {
    std::string model, backend = "cpu", device;
    InferArgs infer;
    std::unique_ptr<ModelOptionFlags> options;
  };
  auto a = std::make_shared<Args>();
  const auto has_infer = [](const ModelEntry& m) { return static_cast<bool>(m.infer); };
  cmd->add_option("model", a->model, "Model (" + model_names(has_infer) + ")")->required();
  const std::string weights_notes = per_model_help(&ModelEntry::weights_help, has_infer);
  cmd->add_option("--weights", a->infer.weights,
                  ".safetensors with the reference parameter names, or a folder with "
                  "model.safetensors (default: seeded random)" +
                      (weights_notes.empty() ? "" : "; " + weights_notes))
      ->check(CLI::ExistingPath);
  a->options = std::make_unique<ModelOptionFlags>(*cmd, &OptionScope::infer);
  cmd->add_option("--input", a->infer.input,
                  per_model_help(&ModelEntry::infer_input_help, has_infer))
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--output", a->infer.output, "output .safetensors")->required();
  cmd->add_option("--stage", a->infer.stage, "ladder stage to run (id or index; default: stage 0)")
      ->check(kNonEmpty);
  cmd->add_option("--size", a->infer.size,
                  "model size (" + per_model_help(&ModelEntry::infer_size_help, has_infer) + ")")
      ->check(kNonEmpty);
  cmd->add_option("--backend", a->backend, "cpu or opencl");
  cmd->add_option("--device", a->device, "OpenCL device (name substring or P:D)");
  cmd->add_option("--seed", a->infer.seed, "seed of the random weights")
      ->check(kNonNegativeUnsigned);
  cmd->add_option("--export-weights", a->infer.export_weights,
                  "also write the weights used as .safetensors (reference names)")
      ->check(kNonEmpty);
  cmd->callback([a, &exit_code] {
    const ModelEntry& m = find_model(a->model);  // names the known models
    InferArgs args = a->infer;
    check_output(args.output, "--output");
    if (!args.export_weights.empty()) check_output(args.export_weights, "--export-weights");
    if (a->backend == "cpu" && !a->device.empty())
      throw std::invalid_argument("--device '" + a->device +
                                  "' names an OpenCL device, and the cpu backend has none");
    if (!m.infer)
      throw std::invalid_argument("infer: model '" + a->model + "' has no infer command yet");
    args.options = a->options->given();
    if (const std::string why = infer_foreign_options(m, args.options); !why.empty())
      throw std::invalid_argument(why);
    args.backend = [a] { return backend_or_bad_input(a->backend, a->device); };
    const InferOutcome outcome = m.infer(args);
    std::cout << outcome.report;
    exit_code = 0;
    // NaN or Inf in an output is no result (an overflowing stage, an input holding NaN): the
    // command fails naming the first, and the file stays for a look at the rest.
    if (!outcome.non_finite.empty()) {
      std::cerr << "stagebench infer: the output is not finite: " << outcome.non_finite
                << " (written to " << args.output.string() << " all the same)\n";
      exit_code = kExitFailed;
    }
  });
}

}  // namespace sb::cli
