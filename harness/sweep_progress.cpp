#include "harness/sweep_progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace sb {
namespace {

std::string duration_text(double s) {
  if (s < 0) return "?";
  char buf[32];
  if (s < 90) {
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  } else if (s < 5400) {
    std::snprintf(buf, sizeof buf, "%.1f min", s / 60);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  }
  return buf;
}

}  // namespace

SweepProgress::SweepProgress(size_t total, size_t done, bool quiet)
    : total_(total), done_(done), quiet_(quiet), tty_(isatty(STDERR_FILENO) != 0) {}

SweepProgress::~SweepProgress() {
  clear_line();
}

void SweepProgress::clear_line() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

double SweepProgress::sweep_eta_s(double job_eta_s) const {
  const size_t running = label_.empty() ? 0 : 1;
  const size_t not_started = total_ - std::min(total_, done_ + running);
  if (finished_here_ == 0) return not_started == 0 ? job_eta_s : -1;
  const double mean = finished_s_ / static_cast<double>(finished_here_);
  const double current =
      running ? (job_eta_s >= 0
                     ? job_eta_s
                     : std::max(
                           0.0,
                           mean - std::chrono::duration<double>(Clock::now() - job_start_).count()))
              : 0;
  return static_cast<double>(not_started) * mean + current;
}

void SweepProgress::begin_job(const std::string& label) {
  label_ = label;
  job_start_ = Clock::now();
  if (quiet_ || tty_) return;
  std::fprintf(stderr, "stagebench sweep: job %zu/%zu %s\n", done_ + 1, total_, label.c_str());
  std::fflush(stderr);
}

void SweepProgress::update(const Progress& p) {
  if (quiet_ || !tty_) return;
  const auto now = Clock::now();
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  std::fprintf(stderr,
               "\r\033[K[job %zu/%zu] %s  %s stage %zu/%zu %s  round %zu  samples %zu  "
               "ETA job <= %s, sweep ~%s",
               done_ + 1, total_, label_.c_str(), p.phase.c_str(), p.stage_index + 1, p.stage_count,
               p.stage_id.c_str(), p.round, p.samples, duration_text(p.eta_s).c_str(),
               duration_text(sweep_eta_s(p.eta_s)).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void SweepProgress::end_job(const std::string& outcome) {
  const double took = std::chrono::duration<double>(Clock::now() - job_start_).count();
  ++finished_here_;
  finished_s_ += took;
  ++done_;
  const std::string label = label_;
  label_.clear();
  if (quiet_) return;
  clear_line();
  std::fprintf(stderr, "stagebench sweep: job %zu/%zu %s %s in %s\n", done_, total_, label.c_str(),
               outcome.c_str(), duration_text(took).c_str());
  std::fflush(stderr);
}

}  // namespace sb
