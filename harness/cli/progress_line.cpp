#include "harness/cli/progress_line.h"

#include <unistd.h>
#include <cstdio>

namespace sb::cli {

ProgressLine::ProgressLine(std::string label, bool enabled)
    : label_(std::move(label)), enabled_(enabled && isatty(STDERR_FILENO)) {}

ProgressLine::~ProgressLine() {
  finish();
}

void ProgressLine::update(const Progress& p) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;  // stay off the hot path
  last_ = now;
  char eta[32] = "?";
  if (p.eta_s >= 0) std::snprintf(eta, sizeof eta, "<= %.0f s", p.eta_s);
  std::fprintf(stderr,
               "\r\033[K%s  %s  stage %zu/%zu %-16s  round %zu  samples %zu  %.0f s  ETA %s",
               label_.c_str(), p.phase.c_str(), p.stage_index + 1, p.stage_count,
               p.stage_id.c_str(), p.round, p.samples, p.elapsed_s, eta);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressLine::finish() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace sb::cli
