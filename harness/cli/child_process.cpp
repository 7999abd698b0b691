#include "harness/cli/child_process.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include "harness/cli/stop_signal.h"

extern char** environ;

namespace sb::cli {

ChildResult run_child(const std::vector<std::string>& argv, bool capture) {
  ChildResult r;
  if (argv.empty()) return r;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int pipe_fd[2] = {-1, -1};
  if (capture && pipe(pipe_fd) != 0) return r;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (capture) {
    posix_spawn_file_actions_adddup2(&actions, pipe_fd[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, pipe_fd[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipe_fd[0]);
    posix_spawn_file_actions_addclose(&actions, pipe_fd[1]);
  } else {
    posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  }
  // A process group of its own: stop signals reach it once, passed on by this process.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc == 0) forward_stop_signals_to(pid);
  if (capture) close(pipe_fd[1]);
  if (rc != 0) {
    if (capture) close(pipe_fd[0]);
    return r;
  }
  if (capture) {
    std::array<char, 4096> buf;
    for (;;) {
      const ssize_t n = read(pipe_fd[0], buf.data(), buf.size());
      if (n > 0) {
        r.output.append(buf.data(), static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        break;
      }
    }
    close(pipe_fd[0]);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  forward_stop_signals_to(0);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

}  // namespace sb::cli
