#include "harness/slurm_commands.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace sb {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(part);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

bool digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// "1-3,5%2" -> 1 2 3 5 (the %N throttle is not part of the list).
std::vector<std::string> expand_tasks(std::string list) {
  list = list.substr(0, list.find('%'));
  std::vector<std::string> out;
  for (const auto& part : split(list, ',')) {
    const size_t dash = part.find('-');
    if (dash == std::string::npos) {
      if (digits(part)) out.push_back(part);
      continue;
    }
    const std::string a = part.substr(0, dash), b = part.substr(dash + 1);
    if (!digits(a) || !digits(b) || a.size() > 9 || b.size() > 9) continue;
    for (long i = std::stol(a), e = std::stol(b); i <= e && out.size() < 100000; ++i)
      out.push_back(std::to_string(i));
  }
  return out;
}

}  // namespace

std::optional<std::string> find_on_path(const std::string& name) {
  if (name.find('/') != std::string::npos)
    return access(name.c_str(), X_OK) == 0 ? std::optional<std::string>(name) : std::nullopt;
  const char* path = std::getenv("PATH");
  for (const auto& dir : split(path ? path : "", ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return std::nullopt;
}

std::string require_on_path(const std::string& name) {
  if (auto found = find_on_path(name)) return *found;
  throw std::invalid_argument(
      name +
      " is not on PATH: this needs Slurm's commands (run it on the cluster's login node, "
      "or load its module)");
}

CommandOutput run_command(const std::vector<std::string>& argv, std::chrono::seconds limit) {
  if (argv.empty()) throw std::runtime_error("run_command: no command");
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, STDIN_FILENO);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  CommandOutput r;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      const ssize_t n = read(fds[k].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[k]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[k].fd);
        fds[k].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  r.status = !r.timed_out && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string parse_sbatch_id(const std::string& out) {
  const std::string line = trim(out.substr(0, out.find('\n')));
  const std::string id = line.substr(0, line.find(';'));
  if (!digits(id)) throw std::runtime_error("sbatch --parsable printed '" + trim(out) + "'");
  return id;
}

SchedulerStates parse_squeue(const std::string& out) {
  SchedulerStates states;
  for (const auto& raw : split(out, '\n')) {
    const auto f = split(trim(raw), '|');
    if (f.size() < 2 || trim(f[0]).empty()) continue;
    states[trim(f[0])] = {trim(f[1]), f.size() > 2 ? trim(f[2]) : ""};
  }
  return states;
}

SchedulerStates parse_sacct(const std::string& out) {
  SchedulerStates states;
  for (const auto& raw : split(out, '\n')) {
    const auto f = split(trim(raw), '|');
    if (f.size() < 2) continue;
    const std::string id = trim(f[0]);
    std::string state = trim(f[1]);
    state = state.substr(0, state.find(' '));  // "CANCELLED by 0"
    const SchedulerState s{state, f.size() > 2 ? trim(f[2]) : ""};
    const size_t open = id.find("_[");
    if (open != std::string::npos && id.back() == ']') {
      for (const auto& task : expand_tasks(id.substr(open + 2, id.size() - open - 3)))
        states[id.substr(0, open) + "_" + task] = s;
    } else if (!id.empty()) {
      states[id] = s;
    }
  }
  return states;
}

}  // namespace sb
