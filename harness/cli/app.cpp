#include "harness/cli/app.h"

#include <exception>
#include <iostream>
#include <new>

#include "harness/cli/commands.h"

namespace sb::cli {

int run_command_line(int argc, const char* const* argv) {
  CLI::App app{"stagebench: measure what each documented optimization stage really buys"};
  app.require_subcommand(1);
  int exit_code = 0;
  add_probe(app, exit_code);
  add_list(app, exit_code);
  add_run(app, exit_code);
  add_infer(app, exit_code);
  add_report(app, exit_code);
  add_sweep(app, exit_code);
  add_merge(app, exit_code);
  add_compare(app, exit_code);
  add_compare_ab(app, exit_code);
  add_export_steps(app, exit_code);
  add_trace_renamed(app);
  add_tune(app, exit_code);
  add_peer(app, exit_code);
  // CLI11 answers a misspelt command with "A subcommand is required", which names nothing.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) known = known || sub->check_name(argv[1]);
    if (!known) {
      std::cerr << "stagebench: unknown command '" << argv[1]
                << "' (stagebench --help lists them)\n";
      return kExitBadInput;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kExitBadInput;
  } catch (const std::invalid_argument& e) {
    std::cerr << "stagebench: " << e.what() << '\n';
    return kExitBadInput;
  } catch (const std::bad_alloc&) {
    // Sizes come from the user (a batch, a shape in a file); nothing else asks for this much.
    std::cerr << "stagebench: out of memory: a size, batch or shape given is too large for this "
                 "machine\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "stagebench: " << e.what() << '\n';
    return kExitFailed;
  }
  return exit_code;
}

}  // namespace sb::cli
