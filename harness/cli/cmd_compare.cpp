// `stagebench compare BASE CANDIDATE`: the CI gate (docs/compare.md). Exit 0 no regression,
// 1 regression (or a suspected one), 2 invalid input or nothing comparable, 3 undecidable: some
// gated comparisons could not be judged (unless --allow-inconclusive or the thresholds file's
// `policy: inconclusive=pass|fail` says otherwise).
#include <iostream>

#include "harness/cli/commands.h"
#include "harness/cli/load_result.h"
#include "harness/cli/option_checks.h"
#include "harness/cli/output_path.h"
#include "reports/compare.h"
#include "reports/compare_render.h"
#include "schema/atomic_file.h"
#include "schema/user_file.h"

namespace sb::cli {
namespace {

// Not a failure of the candidate and not bad input: the data could not decide (docs/compare.md).
constexpr int kExitUndecidable = 3;

}  // namespace

void add_compare(CLI::App& app, int& exit_code) {
  struct Options {
    std::string base, candidate, thresholds, format = "md", output;
    bool allow_inconclusive = false;
    CompareOptions compare;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "compare",
      "Compare two result files stage by stage; exit 1 on a regression, 2 on invalid input, 3 "
      "when gated comparisons could not be judged");
  cmd->add_option("base", o->base, "the reference stagebench/1 JSON")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("candidate", o->candidate, "the stagebench/1 JSON to judge")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--thresholds,-t", o->thresholds,
                  "rules file, e.g. 'MODEL/cpu/*/time: +5%' (docs/compare.md)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--alpha", o->compare.alpha, "significance level of the tests (default 0.05)")
      ->check(kFiniteNumber)
      ->check(CLI::Range(1e-9, 0.5));
  cmd->add_option("--min-effect", o->compare.min_effect,
                  "smallest relative change that counts, as a fraction (default 0.02)")
      ->check(kFiniteNumber)
      ->check(CLI::Range(0.0, 10.0));
  cmd->add_option("--min-samples", o->compare.min_samples,
                  "fewer samples on a side make the time verdict AMBIGUOUS (default 5)")
      ->check(kNonNegativeInteger)
      ->check(CLI::Range(2, 1000000));
  cmd->add_flag("--allow-inconclusive", o->allow_inconclusive,
                "pass comparisons that could not be judged and suspected regressions (report "
                "them only); overrides the thresholds file's policy line");
  cmd->add_option("--format,-f", o->format, "md (default) or json")
      ->check(CLI::IsMember({"md", "markdown", "json"}));
  cmd->add_option("-o,--output", o->output, "write to this file instead of standard output")
      ->check(kNonEmpty);
  cmd->callback([o, &exit_code] {
    if (o->output != "-" && !o->output.empty()) check_output(o->output, "-o");
    const nlohmann::json base = load_result_file(o->base);
    const nlohmann::json candidate = load_result_file(o->candidate);
    CompareOptions options = o->compare;
    if (o->allow_inconclusive) options.inconclusive = InconclusivePolicy::pass;
    if (!o->thresholds.empty()) options.thresholds_text = read_user_file(o->thresholds);
    CompareResult result;
    try {
      result = compare_documents(base, candidate, options);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(o->thresholds + ": " + e.what());
    }
    const std::string text =
        o->format == "json"
            ? compare_json(result, options, o->base, o->candidate)
                      .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
                  "\n"
            : compare_markdown(result, options, o->base, o->candidate);
    if (o->output.empty() || o->output == "-") {
      std::cout << text;
    } else {
      write_text_atomic(o->output, text);  // a full disk keeps the previous report whole
    }
    // The hint goes to stderr too when the table went elsewhere or is JSON: a CI log shows it.
    if (!result.hint.empty() && (o->format == "json" || !(o->output.empty() || o->output == "-")))
      std::cerr << "stagebench: " << result.hint << '\n';
    switch (result.outcome()) {
      case CompareOutcome::nothing_comparable:
        std::cerr << "stagebench: nothing comparable between " << o->base << " and " << o->candidate
                  << '\n';
        exit_code = kExitBadInput;
        break;
      case CompareOutcome::regression:
        exit_code = kExitFailed;
        break;
      case CompareOutcome::undecidable:
        exit_code = kExitUndecidable;
        break;
      case CompareOutcome::pass:
        exit_code = 0;
        break;
    }
  });
}

}  // namespace sb::cli
