// stagebench: runs documented optimization ladders stage by stage and measures what each buys.
#include "harness/cli/app.h"
#include "harness/cli/run_context.h"
#include "harness/cli/stop_signal.h"
#include "harness/cli/threading.h"

int main(int argc, char** argv) {
  sb::cli::exit_on_stop_signals();       // exit 130 whenever a stop comes, never 143
  sb::cli::adapt_threading(argc, argv);  // it may execute this binary again
  sb::cli::remember_argv(argc, argv);
  return sb::cli::run_command_line(argc, argv);
}
