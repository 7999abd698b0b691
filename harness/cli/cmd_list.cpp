#include <iostream>

#include "harness/cli/commands.h"
#include "models/registry.h"

namespace sb::cli {

void add_list(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("list", "List the models, their sizes and ladders with claims");
  cmd->callback([&exit_code] {
    for (const auto& m : model_registry()) {
      std::cout << m.name << ": " << m.summary << "\n  sizes:";
      for (const auto& s : m.sizes) std::cout << ' ' << s;
      if (m.other_sizes.accepts) std::cout << ", or " << m.other_sizes.form;
      std::cout << '\n';
      for (const OptionSpec& o : m.options)
        if (o.scope.run) std::cout << "  --" << o.name << ": " << o.help << '\n';
      std::cout << "  stages:\n";
      const auto& stages = m.ladder();
      for (size_t i = 0; i < stages.size(); ++i) {
        const auto& s = stages[i];
        std::cout << "    " << i << "  " << s.id << " - " << s.title << "\n       claim ("
                  << s.claim.source << "): " << s.claim.text;
        if (s.claim.speedup) std::cout << " [cumulative " << *s.claim.speedup << "x]";
        std::cout << "; tolerance cosine >= " << s.tolerance.min_cosine << " (" << s.tolerance.basis
                  << ")\n";
      }
    }
    std::cout << "backends:";
    for (const auto& b : backend_names()) std::cout << ' ' << b;
    std::cout << '\n';
    exit_code = 0;
  });
}

}  // namespace sb::cli
