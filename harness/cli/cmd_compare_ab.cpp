// `stagebench compare-ab --base F... --candidate F...`: the CI time gate's judgement over
// interleaved processes of two builds (reports/ab_compare.h, scripts/ab-gate.sh). Exit 0 no
// regression, 1 a stage slower beyond the rule or a stage that vanished, 2 invalid input or
// nothing comparable, 3 a stage the base itself did not measure in every process.
#include <iostream>

#include "harness/cli/commands.h"
#include "harness/cli/load_result.h"
#include "harness/cli/option_checks.h"
#include "harness/cli/output_path.h"
#include "reports/ab_compare.h"
#include "schema/atomic_file.h"

namespace sb::cli {

void add_compare_ab(CLI::App& app, int& exit_code) {
  struct Options {
    std::vector<std::string> base, candidate;
    std::string format = "md", output;
    AbOptions ab;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "compare-ab",
      "Judge an A/B run: one result file per process of each build, run interleaved; exit 1 "
      "when a stage is slower by the ratio with disjoint ranges, or vanished");
  cmd->add_option("--base", o->base, "the base build's result files, one per process")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--candidate", o->candidate, "the candidate's result files, one per process")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--slower", o->ab.slower,
                  "the ratio of medians at which a disjoint slowdown fails (default 1.25)")
      ->check(kFiniteNumber)
      ->check(CLI::Range(1.0, 100.0));
  cmd->add_option("--format,-f", o->format, "md (default) or json")
      ->check(CLI::IsMember({"md", "markdown", "json"}));
  cmd->add_option("-o,--output", o->output, "write to this file instead of standard output")
      ->check(kNonEmpty);
  cmd->callback([o, &exit_code] {
    if (o->output != "-" && !o->output.empty()) check_output(o->output, "-o");
    std::vector<nlohmann::json> base, candidate;
    for (const std::string& f : o->base) base.push_back(load_result_file(f));
    for (const std::string& f : o->candidate) candidate.push_back(load_result_file(f));
    const AbResult r = compare_ab(base, candidate, o->ab);
    const std::string text =
        o->format == "json" ? ab_json(r, o->ab).dump(2) + "\n" : ab_markdown(r, o->ab);
    if (o->output.empty() || o->output == "-")
      std::cout << text;
    else
      write_text_atomic(o->output, text);
    exit_code = r.exit_code();
  });
}

}  // namespace sb::cli
