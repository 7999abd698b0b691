#pragma once
// The whole command line: every subcommand, built from the models registered when it is called
// (models/registry.h), parsed and run. Returns the exit status. main() calls it after the
// process-wide setup; a test calls it in-process after registering a model of its own.
namespace sb::cli {

int run_command_line(int argc, const char* const* argv);

}  // namespace sb::cli
