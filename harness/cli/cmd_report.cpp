#include <iostream>

#include "harness/cli/commands.h"
#include "harness/result_json.h"
#include "reports/ladder_table.h"

namespace sb::cli {

void add_report(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("report", "Print the ladder tables of result files");
  auto files = std::make_shared<std::vector<std::string>>();
  cmd->add_option("files", *files, "stagebench/1 JSON files")->required()->check(CLI::ExistingFile);
  cmd->callback([files, &exit_code] {
    for (const auto& f : *files) {
      const nlohmann::json doc = read_document(f);
      for (const auto& run : doc["runs"]) std::cout << ladder_table_text(run) << '\n';
    }
    exit_code = 0;
  });
}

}  // namespace sb::cli
