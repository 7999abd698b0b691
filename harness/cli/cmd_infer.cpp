#include <iostream>

#include "harness/cli/commands.h"
#include "models/enformer/infer.h"
#include "models/registry.h"

namespace sb::cli {

void add_infer(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "infer", "One forward on your own input and weights; writes every output head");
  struct Args {
    std::string model, backend = "cpu", device;
    enformer::InferRequest req;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("model", a->model, "Model (enformer)")->required();
  cmd->add_option("--weights", a->req.weights,
                  ".safetensors with the reference parameter names (default: seeded random)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--input", a->req.input,
                  "one-hot [B,L,4] or base indices [B,L] (.npy/.safetensors)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--output", a->req.output, "output .safetensors")->required();
  cmd->add_option("--stage", a->req.stage, "ladder stage to run (id or index)");
  cmd->add_option("--size", a->req.size, "model size (default: from the input length)");
  cmd->add_option("--backend", a->backend, "cpu or opencl");
  cmd->add_option("--device", a->device, "OpenCL device (name substring or P:D)");
  cmd->add_option("--seed", a->req.seed, "seed of the random weights");
  cmd->add_option("--export-weights", a->req.export_weights,
                  "also write the weights used as .safetensors (reference names)");
  cmd->callback([a, &exit_code] {
    if (a->model != "enformer") find_model(a->model);  // names the known models
    if (a->model != "enformer")
      throw std::invalid_argument("infer: model '" + a->model + "' has no infer command yet");
    const auto s = enformer::run_inference(a->req, make_backend(a->backend, a->device));
    std::cout << "enformer/" << s.size << " stage " << s.stage << ": batch " << s.batch << " x "
              << s.length << " bp -> " << a->req.output.string() << '\n';
    exit_code = 0;
  });
}

}  // namespace sb::cli
