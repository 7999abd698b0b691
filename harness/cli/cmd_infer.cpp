#include <iostream>
#include <optional>

#include "harness/cli/commands.h"
#include "harness/cli/job.h"
#include "harness/cli/option_checks.h"
#include "harness/cli/output_path.h"
#include "models/enformer/infer.h"
#include "models/geneformer/infer.h"
#include "models/registry.h"

namespace sb::cli {
void add_infer(CLI::App& app, int& exit_code) {
  auto* cmd =
      app.add_subcommand("infer", "One forward on your own input and weights; writes every output");
  struct Args {
    std::string model, backend = "cpu", device, stage, size;
    std::filesystem::path weights, input, mask, output, export_weights;
    uint64_t seed = 1;
    int64_t heads = 0, target = 0;
    std::optional<float> eps;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("model", a->model, "Model (enformer, geneformer)")->required();
  cmd->add_option("--weights", a->weights,
                  ".safetensors with the reference parameter names, or a folder with "
                  "model.safetensors (default: seeded random); geneformer: any BERT, its "
                  "configuration read from the shapes")
      ->check(CLI::ExistingPath);
  cmd->add_option("--heads", a->heads,
                  "geneformer: attention heads of --weights (default: config.json beside it, "
                  "else hidden/64)")
      ->check(kNonNegativeInteger)
      ->check(CLI::PositiveNumber);
  cmd->add_option("--eps", a->eps,
                  "geneformer: LayerNorm eps of --weights (default: config.json, else 1e-12)")
      ->check(kFiniteNumber)
      ->check(CLI::PositiveNumber);
  cmd->add_option("--target", a->target,
                  "enformer: centre tokens kept after the transformer (default: config.json's "
                  "target_length, else the size's at its length, else 896/1536 of the tokens)")
      ->check(kNonNegativeInteger)
      ->check(CLI::PositiveNumber);
  cmd->add_option("--input", a->input,
                  "enformer: one-hot [B,L,4] or base indices [B,L]; geneformer: token ids "
                  "[B,S] (.npy/.safetensors)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--mask", a->mask,
                  "geneformer: attention mask [B,S] of 0/1 (default: the input file's "
                  "'attention_mask', else ids != 0)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--output", a->output, "output .safetensors")->required();
  cmd->add_option("--stage", a->stage, "ladder stage to run (id or index; default: stage 0)")
      ->check(kNonEmpty);
  cmd->add_option("--size", a->size,
                  "model size (enformer: the input length's, else full's with --weights; "
                  "geneformer: full)")
      ->check(kNonEmpty);
  cmd->add_option("--backend", a->backend, "cpu or opencl");
  cmd->add_option("--device", a->device, "OpenCL device (name substring or P:D)");
  cmd->add_option("--seed", a->seed, "seed of the random weights")->check(kNonNegativeUnsigned);
  cmd->add_option("--export-weights", a->export_weights,
                  "also write the weights used as .safetensors (reference names)")
      ->check(kNonEmpty);
  cmd->callback([a, &exit_code] {
    find_model(a->model);  // names the known models
    check_output(a->output, "--output");
    if (!a->export_weights.empty()) check_output(a->export_weights, "--export-weights");
    if (a->backend == "cpu" && !a->device.empty())
      throw std::invalid_argument("--device '" + a->device +
                                  "' names an OpenCL device, and the cpu backend has none");
    std::string non_finite;
    if (a->model == "enformer") {
      enformer::InferRequest r;
      r.weights = a->weights, r.input = a->input, r.output = a->output;
      r.export_weights = a->export_weights, r.seed = a->seed, r.size = a->size;
      r.target = a->target;
      if (!a->stage.empty()) r.stage = a->stage;
      if (!a->mask.empty()) throw std::invalid_argument("infer enformer: --mask does not apply");
      if (a->heads != 0 || a->eps)
        throw std::invalid_argument("infer enformer: --heads and --eps do not apply");
      const auto s = enformer::run_inference(r, backend_or_bad_input(a->backend, a->device));
      non_finite = s.non_finite;
      std::cout << "enformer/" << s.size << " stage " << s.stage << ": batch " << s.batch << " x "
                << s.length << " bp -> " << r.output.string() << '\n'
                << "configuration: " << s.config << '\n';
    } else if (a->model == "geneformer") {
      geneformer::InferRequest r;
      r.weights = a->weights, r.input = a->input, r.mask = a->mask, r.output = a->output;
      r.export_weights = a->export_weights, r.seed = a->seed;
      r.overrides = {a->heads, a->eps};
      if (a->target != 0) throw std::invalid_argument("infer geneformer: --target does not apply");
      if (!a->size.empty()) r.size = a->size;
      if (!a->stage.empty()) r.stage = a->stage;
      const auto s = geneformer::run_inference(r, backend_or_bad_input(a->backend, a->device));
      non_finite = s.non_finite;
      std::cout << "geneformer/" << s.size << " stage " << s.stage << ": batch " << s.batch << " x "
                << s.tokens << " tokens, " << s.layers << " layers -> " << r.output.string() << '\n'
                << "configuration: " << s.configuration << '\n';
    } else {
      throw std::invalid_argument("infer: model '" + a->model + "' has no infer command yet");
    }
    exit_code = 0;
    // NaN or Inf in an output is no result (an overflowing stage, an input holding NaN): the
    // command fails naming the first, and the file stays for a look at the rest.
    if (!non_finite.empty()) {
      std::cerr << "stagebench infer: the output is not finite: " << non_finite << " (written to "
                << a->output.string() << " all the same)\n";
      exit_code = kExitFailed;
    }
  });
}

}  // namespace sb::cli
