// `stagebench merge A.json B.json ... -o OUT.json`: joins the shards of a sweep
// (docs/sweeps.md, "Merging").
#include <filesystem>
#include <iostream>

#include "harness/cli/commands.h"
#include "harness/cli/output_lock.h"
#include "harness/cli/output_path.h"
#include "harness/sweep_config.h"
#include "harness/sweep_merge.h"
#include "models/registry.h"
#include "reports/gbench.h"
#include "schema/document.h"

namespace sb::cli {
namespace {

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string output;
  std::string config;
  std::string format = "json";
};

int execute(const MergeArgs& a) {
  std::vector<std::string> order;
  if (!a.config.empty())
    for (const auto& job : read_sweep_file(a.config, declared_options()))
      order.push_back(job_key(job));
  std::vector<MergeInput> inputs;
  for (const auto& f : a.inputs) {
    try {
      inputs.push_back({f, read_document(f)});
    } catch (const std::runtime_error& e) {
      throw std::invalid_argument(e.what());  // an unreadable input is bad input
    }
  }
  std::vector<std::string> missing;
  const nlohmann::json merged = merge_documents(inputs, order, &missing);
  for (const auto& key : missing)
    std::cerr << "stagebench merge: job " << key << " of " << a.config << " is in no input\n";
  check_output(a.output, "-o");
  const std::filesystem::path out_dir = std::filesystem::path(a.output).parent_path();
  if (!out_dir.empty()) std::filesystem::create_directories(out_dir);
  const OutputLock lock(a.output);  // a second merge into the same file at once is refused
  write_json_atomic(a.output, a.format == "gbench" ? gbench_document(merged) : merged);
  std::cout << "merged " << merged["runs"].size() << " runs from " << inputs.size()
            << " files into " << a.output << '\n';
  return missing.empty() ? 0 : kExitFailed;
}

}  // namespace

void add_merge(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("merge", "Join result files (a sweep's shards) into one");
  auto a = std::make_shared<MergeArgs>();
  cmd->add_option("files", a->inputs, "stagebench/1 JSON files")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", a->output, "Merged result file")->required();
  cmd->add_option("--config", a->config, "The sweep file: order runs as its jobs, reject others")
      ->check(CLI::ExistingFile);
  cmd->add_option("--format", a->format, "json (stagebench/1) or gbench (Google Benchmark)")
      ->check(CLI::IsMember({"json", "gbench"}))
      ->capture_default_str();
  cmd->callback([a, &exit_code] { exit_code = execute(*a); });
}

}  // namespace sb::cli
