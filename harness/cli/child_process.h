#pragma once
// Running another program (a Python interpreter for `stagebench peer`) without a shell: the
// arguments go to execvp as they are, so paths with spaces or quotes need no quoting.
#include <string>
#include <vector>

namespace sb::cli {

struct ChildResult {
  int status = -1;     // exit status; -1 when it could not start or did not exit normally
  std::string output;  // stderr (and stdout when captured), when capture was asked for
};

// Runs argv[0] (looked up in PATH) with argv and waits. With capture, its stdout and stderr are
// collected into output; without, they pass through to this process's stderr, so that a long
// script's progress shows and this process's stdout stays for its own summary.
ChildResult run_child(const std::vector<std::string>& argv, bool capture);

}  // namespace sb::cli
