#pragma once
// Runs the stagebench binary (STAGEBENCH_BIN, set by the test's CMake) with arguments and
// captures its exit status and its stdout+stderr together.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace sb::testing {

struct CommandResult {
  int status = -1;  // exit status; -1 when it did not exit normally
  std::string output;
};

inline CommandResult run_stagebench(const std::string& args) {
  CommandResult r;
  const std::string cmd = std::string(STAGEBENCH_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) r.output.append(buf.data(), n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

}  // namespace sb::testing
