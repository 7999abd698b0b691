#pragma once
// Runs the stagebench binary (STAGEBENCH_BIN, set by the test's CMake) with arguments and
// captures its exit status and its stdout+stderr together. Each call runs in a directory of its
// own, so that a command's default output (results/latest.json) never meets another test's run
// in parallel: two of them once met on its lock and the refusal hid the message under test.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "tests/common/temp_dir.h"

namespace sb::testing {

struct CommandResult {
  int status = -1;  // exit status; -1 when it did not exit normally
  std::string output;
};

// `shell_prefix` runs first in the same shell (a ulimit, a timeout).
inline CommandResult run_stagebench(const std::string& args, const std::string& shell_prefix = "") {
  const TempDir cwd("sb_cwd_");
  CommandResult r;
  const std::string cmd = "cd '" + cwd.path().string() + "' && " + shell_prefix +
                          std::string(STAGEBENCH_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) r.output.append(buf.data(), n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

}  // namespace sb::testing
