// stagebench: runs documented optimization ladders stage by stage and measures what each buys.
#include <exception>
#include <iostream>
#include <new>

#include "harness/cli/commands.h"
#include "harness/cli/run_context.h"
#include "harness/cli/stop_signal.h"
#include "harness/cli/threading.h"

int main(int argc, char** argv) {
  sb::cli::exit_on_stop_signals();       // exit 130 whenever a stop comes, never 143
  sb::cli::adapt_threading(argc, argv);  // it may execute this binary again
  sb::cli::remember_argv(argc, argv);
  CLI::App app{"stagebench: measure what each documented optimization stage really buys"};
  app.require_subcommand(1);
  int exit_code = 0;
  sb::cli::add_probe(app, exit_code);
  sb::cli::add_list(app, exit_code);
  sb::cli::add_run(app, exit_code);
  sb::cli::add_infer(app, exit_code);
  sb::cli::add_report(app, exit_code);
  sb::cli::add_sweep(app, exit_code);
  sb::cli::add_merge(app, exit_code);
  sb::cli::add_compare(app, exit_code);
  sb::cli::add_compare_ab(app, exit_code);
  sb::cli::add_export_steps(app, exit_code);
  sb::cli::add_trace_renamed(app);
  sb::cli::add_tune(app, exit_code);
  sb::cli::add_peer(app, exit_code);
  // CLI11 answers a misspelt command with "A subcommand is required", which names nothing.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) known = known || sub->check_name(argv[1]);
    if (!known) {
      std::cerr << "stagebench: unknown command '" << argv[1]
                << "' (stagebench --help lists them)\n";
      return sb::cli::kExitBadInput;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : sb::cli::kExitBadInput;
  } catch (const std::invalid_argument& e) {
    std::cerr << "stagebench: " << e.what() << '\n';
    return sb::cli::kExitBadInput;
  } catch (const std::bad_alloc&) {
    // Sizes come from the user (a batch, a shape in a file); nothing else asks for this much.
    std::cerr << "stagebench: out of memory: a size, batch or shape given is too large for this "
                 "machine\n";
    return sb::cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "stagebench: " << e.what() << '\n';
    return sb::cli::kExitFailed;
  }
  return exit_code;
}
