#include <iostream>

#include "harness/cli/commands.h"
#include "models/registry.h"

namespace sb::cli {

void add_tune(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "tune", "Tune CLBlast's GEMMs on an OpenCL device (cached; later runs there use it)");
  auto o = std::make_shared<LibraryTuneOptions>();
  cmd->add_option("--device", o->device_filter, "OpenCL device: name substring or P:D");
  cmd->add_option("--size", o->size, "Edge of the square GEMM tuned and timed")
      ->capture_default_str();
  cmd->add_option("--fraction", o->fraction, "Share of each tuner's search space to try")
      ->capture_default_str();
  cmd->callback([o, &exit_code] {
    o->validate();
    std::cout << "tuning CLBlast (fraction " << o->fraction << ", GEMM " << o->size
              << "^3); this compiles many kernels\n"
              << std::flush;
    const LibraryTuneReport r = tune_library(*o);
    std::cout << "device " << r.device << " (" << r.seconds << " s)\n";
    for (const auto& [kernel, m] : r.measured.items()) {
      std::cout << "  " << kernel << " tuned at " << m.value("gemm_edge", 0) << "^3";
      std::cout << (m.value("kept", false) ? ": kept" : ": not kept (" + m.value("why", "") + ")")
                << '\n';
      for (const auto& g : m.value("gemms", nlohmann::json::array()))
        std::cout << "    " << g.value("gemm", "") << ": " << g.value("gflops_before", 0.0)
                  << " GFLOP/s with CLBlast's parameters, " << g.value("gflops_after", 0.0)
                  << " tuned\n";
    }
    std::cout << (r.saved ? "wrote " + r.path : "nothing kept; no cache written") << '\n';
    exit_code = 0;
  });
}

}  // namespace sb::cli
