#pragma once
// The sweep's progress on stderr: jobs done of total, the running ladder's stage and samples,
// and ETAs for the job and the whole sweep. Redrawn in place on a TTY; elsewhere (CI logs) one
// line per job start and end.
#include <chrono>
#include <cstddef>
#include <string>

#include "harness/runner.h"

namespace sb {

class SweepProgress {
 public:
  // `total` jobs in this session, `done` of them already complete (resumed). `quiet` silences
  // everything.
  SweepProgress(size_t total, size_t done, bool quiet);
  ~SweepProgress();
  SweepProgress(const SweepProgress&) = delete;
  SweepProgress& operator=(const SweepProgress&) = delete;

  void begin_job(const std::string& label);
  void update(const Progress& p);
  void end_job(const std::string& outcome);

  // The sweep's remaining time: jobs still to start times the mean job time of this session,
  // plus what the running job has left; < 0 while unknown (no job of this session has finished
  // and others are still to come).
  double sweep_eta_s(double job_eta_s) const;

 private:
  void clear_line();

  using Clock = std::chrono::steady_clock;
  size_t total_;
  size_t done_;
  bool quiet_;
  bool tty_;
  bool drawn_ = false;
  size_t finished_here_ = 0;  // jobs this session ran to the end
  double finished_s_ = 0;     // their total time
  std::string label_;
  Clock::time_point job_start_{};
  Clock::time_point last_draw_{};
};

}  // namespace sb
