#include <iostream>

#include "harness/cli/commands.h"
#include "harness/cli/option_checks.h"
#include "harness/cli/output_path.h"
#include "harness/cli/run_context.h"
#include "probes/probe.h"
#include "schema/document.h"

namespace sb::cli {

void add_probe(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("probe", "Print the facts about this machine the results carry");
  auto json_out = std::make_shared<std::string>();
  auto events = std::make_shared<std::vector<std::string>>();
  cmd->add_option("--json", *json_out, "Also write them as JSON to this file")->check(kNonEmpty);
  cmd->add_option("--events", *events, "PAPI events to try (default: the standard set)")
      ->delimiter(',');
  cmd->callback([json_out, events, &exit_code] {
    if (!json_out->empty()) check_output(*json_out, "--json");
    const nlohmann::json ctx = run_context(*events, true);
    std::cout << format_probe_text(ctx);
    if (!json_out->empty()) write_json_atomic(*json_out, ctx);
    exit_code = 0;
  });
}

}  // namespace sb::cli
