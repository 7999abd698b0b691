#include "harness/cli/stop_signal.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>

namespace sb::cli {
namespace {

std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler needs a lock-free flag");
char g_message[128];  // composed before the handlers are installed: write() is all they may do
size_t g_message_size = 0;
std::atomic<pid_t> g_child{0};
static_assert(std::atomic<pid_t>::is_always_lock_free, "the signal handlers read it");

// The child runs in a process group of its own, so that a terminal's Ctrl-C reaches it once,
// through here, and not a second time, which would end it at once.
void forward(int sig) {
  if (const pid_t child = g_child.load(); child > 0) kill(child, sig);
}

}  // namespace

extern "C" void exit_now(int sig) {
  forward(sig);
  static const char kMessage[] = "\nstagebench: stopped at once\n";
  [[maybe_unused]] const ssize_t n = write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  _exit(kExitStopped);
}

namespace {

extern "C" void on_stop(int sig) {
  forward(sig);
  g_stop.store(true);
  [[maybe_unused]] const ssize_t n = write(STDERR_FILENO, g_message, g_message_size);
  std::signal(sig, exit_now);  // a second signal ends the process
}

extern "C" void exit_stopped(int sig) {
  forward(sig);
  static const char kMessage[] = "\nstagebench: stopped before measuring; nothing written\n";
  [[maybe_unused]] const ssize_t n = write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  _exit(kExitStopped);
}

}  // namespace

void exit_on_stop_signals() {
  std::signal(SIGINT, exit_stopped);
  std::signal(SIGTERM, exit_stopped);
}

StopSignals::StopSignals(const char* command) {
  const int n = std::snprintf(g_message, sizeof g_message,
                              "\nstagebench %s: stopping after the current run (again to quit "
                              "at once)\n",
                              command);
  g_message_size = n > 0 ? std::min(static_cast<size_t>(n), sizeof g_message - 1) : 0;
  g_stop.store(false);
  std::signal(SIGINT, on_stop);
  std::signal(SIGTERM, on_stop);
}

StopSignals::~StopSignals() {
  exit_on_stop_signals();
}

const std::atomic<bool>* StopSignals::flag() const {
  return &g_stop;
}

void forward_stop_signals_to(pid_t child) {
  g_child.store(child);
}

}  // namespace sb::cli
