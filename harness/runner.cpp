#include "harness/runner.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "contract/device_lost.h"
#include "harness/stage_report.h"
#include "harness/stage_state.h"
#include "instrument/allocation_tracker.h"
#include "instrument/kernel_log.h"

namespace sb {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::vector<size_t> ladder_indices(const Workload& w, std::vector<size_t> stages) {
  const auto& specs = w.stages();
  const size_t count = specs.size();
  if (count == 0) throw std::invalid_argument("the workload has no stages");
  for (size_t s : stages) {
    if (s >= count) {
      throw std::invalid_argument("stage " + std::to_string(s) +
                                  " does not exist (the ladder has " + std::to_string(count) +
                                  " stages)");
    }
  }
  stages.push_back(0);  // the baselines are always measured
  for (size_t i = 0, asked = stages.size(); i < asked; ++i) {
    const std::string& base = specs[stages[i]].baseline;
    if (!base.empty()) stages.push_back(find_stage(specs, base, "ladder"));
  }
  std::sort(stages.begin(), stages.end());
  stages.erase(std::unique(stages.begin(), stages.end()), stages.end());
  return stages;
}

void fail(StageState& st, const std::string& where, const std::string& what) {
  st.phase = StageState::Phase::kFailed;
  st.reason = where + ": " + what;
}

// Runs `body`, recording any exception as the stage's failure; returns whether it succeeded.
// A lost device is recorded like any failure and also in *lost, which ends the ladder's use of
// the device.
template <typename Body>
bool guarded(StageState& st, const std::string& where, Body body, std::string* lost = nullptr) {
  try {
    body();
    return true;
  } catch (const DeviceLost& e) {
    fail(st, where, e.what());
    if (lost && lost->empty()) *lost = e.what();
  } catch (const std::exception& e) {
    fail(st, where, e.what());
  } catch (...) {
    fail(st, where, "unknown exception");
  }
  return false;
}

class LadderRunner {
 public:
  LadderRunner(Workload& w, const RunInfo& info, const RunnerOptions& opt)
      : w_(w), info_(info), opt_(opt) {}

  RunRecord run(const std::vector<size_t>& indices) {
    params_ = w_.params();
    train_ = w_.mode() == "train";
    try {
      set_up(indices);
      for (size_t i = 0; i < states_.size(); ++i) warm_up(i);
      begin_collectors();
      emit_partial();
      set_device_events(false);
      measure_rounds();
      set_device_events(true);
      if (lost_.empty()) device_samples();
      if (lost_.empty()) {  // all three would only meet the lost device again
        check_training();
        collect_summaries();
      }
    } catch (...) {
      release_all();  // a cancel (RunStopped, a throwing on_partial) frees what stages hold
      throw;
    }
    RunRecord run = build_run(info_, params_, states_, opt_, true);
    release_all();
    return run;
  }

 private:
  void set_up(const std::vector<size_t>& indices) {
    const auto& specs = w_.stages();
    states_.resize(indices.size());
    // Every stage's identity first: a record written while a later stage prepares (a partial
    // write, a stop) names all of them with their titles and claims, not blank stages.
    for (size_t i = 0; i < indices.size(); ++i) {
      states_[i].index = indices[i];
      states_[i].spec = specs[indices[i]];
      states_[i].rule = std::make_unique<StoppingRule>(opt_);
    }
    for (size_t i = 0; i < indices.size(); ++i) {
      StageState& st = states_[i];
      if (fail_if_lost(st)) continue;
      check_stop();
      std::string skip;
      if (!guarded(st, "skip check", [&] { skip = w_.skip_reason(st.index); })) continue;
      if (!skip.empty()) {
        st.phase = StageState::Phase::kSkipped;
        st.reason = skip;
        continue;
      }
      // What prepare() leaves allocated (weights, caches, a static plan) belongs to this stage
      // alone; the memory collector adds it to the transient peak of the stage's samples.
      const CollectorSources before = w_.sources();
      const uint64_t host0 = before.host_tensors ? before.host_tensors->live() : 0;
      const uint64_t dev0 = before.device_buffers ? before.device_buffers->live() : 0;
      if (!guarded(
              st, "prepare", [&] { w_.prepare(st.index); }, &lost_))
        continue;
      st.prepared = true;
      const CollectorSources after = w_.sources();
      if (after.host_tensors) st.resident_host = after.host_tensors->live() - host0;
      if (after.device_buffers) st.resident_device = after.device_buffers->live() - dev0;
      if (!guarded(st, "counts", [&] { st.counts = w_.counts(st.index); })) continue;
      if (opt_.make_collectors) {
        guarded(st, "collectors", [&] {
          for (auto& c : opt_.make_collectors()) {
            if (c && c->available()) st.collectors.push_back(std::move(c));
          }
        });
      }
    }
  }

  void warm_up(size_t i) {
    StageState& st = states_[i];
    if (!st.live() || fail_if_lost(st)) return;
    const Clock::time_point t0 = Clock::now();
    for (size_t runs = 0; runs < opt_.warmup_runs || seconds_since(t0) < opt_.warmup_s; ++runs) {
      check_stop();  // a long warm-up must not outlast a signal
      report_progress("warmup", i, 0, 0);
      if (!guarded(
              st, "warm-up run", [&] { w_.run(st.index); }, &lost_))
        return;
    }
  }

  // A stage that meets a lost device fails with its reason (it keeps no samples: it has none).
  bool fail_if_lost(StageState& st) {
    if (lost_.empty() || !st.live()) return false;
    fail(st, "device lost", lost_);
    return true;
  }

  // Called between runs: a stop request ends the ladder here, after a last snapshot.
  void check_stop() {
    if (!opt_.stop || !opt_.stop->load()) return;
    emit_partial();  // a sweep's hook throws its own cancel from here; a run's saves the output
    throw RunStopped();
  }

  void begin_collectors() {
    for (auto& st : states_) {
      if (!st.live()) continue;
      guarded(st, "collectors begin_stage", [&] {
        CollectorSources sources = w_.sources();
        sources.stage_resident_host_bytes = st.resident_host;
        sources.stage_resident_device_bytes = st.resident_device;
        for (auto& c : st.collectors) c->begin_stage(sources);
      });
    }
  }

  // One timed sample: collectors bracket the timed region, which holds w.run() alone. Any
  // exception fails the stage, named by the step it came from. A device sample (`device`)
  // brackets the run with the collectors that need the backend's profiling events instead,
  // and its time is not a sample of the stage.
  void sample(StageState& st, bool device = false) {
    std::vector<Collector*> active;
    for (auto& c : st.collectors)
      if (c->needs_device_events() == device) active.push_back(c.get());
    size_t started = 0;
    const char* where = "collector start";
    try {
      for (; started < active.size(); ++started) active[started]->start();
      where = "run";
      const Clock::time_point t0 = Clock::now();
      w_.run(st.index);
      const double seconds = seconds_since(t0);
      where = "collector stop";
      while (started > 0) active[--started]->stop();
      if (device) return;
      st.samples_s.push_back(seconds);
      if (!train_) {
        where = "output";
        st.output = w_.output(st.index);
        st.has_output = true;
      }
    } catch (const DeviceLost& e) {
      fail(st, where, e.what());
      if (lost_.empty()) lost_ = e.what();
    } catch (const std::exception& e) {
      fail(st, where, e.what());
    } catch (...) {
      fail(st, where, "unknown exception");
    }
    if (!st.live()) stop_quietly(active, started);
  }

  // Leaves the collectors stopped after a failure; their own errors no longer matter then.
  static void stop_quietly(const std::vector<Collector*>& active, size_t started) {
    while (started > 0) {
      try {
        active[--started]->stop();
      } catch (...) {
      }
    }
  }

  // The backend's per-command profiling events: off for the timed samples, on for the rest.
  // They cost the host several microseconds a command, which a host-bound step pays in full
  // (a training step on NVIDIA of 1.4 ms without them took 2.3-2.6 ms with them:
  // results/h200/lead30-2026-11-28/README.md), and PyTorch's figures beside ours carry none.
  void set_device_events(bool on) {
    if (KernelLog* log = w_.sources().kernels) log->set_recording(on);
  }

  // After the timed rounds, each measured stage with a collector that reads device events runs
  // kDeviceSamples more samples (at most as many as it was timed) with the events on, bracketed
  // by those collectors alone: the stage's device time, kernel counts and timeline come from
  // them, and its time from the timed samples, which had none.
  void device_samples() {
    constexpr size_t kDeviceSamples = 10;
    for (size_t i = 0; i < states_.size() && lost_.empty(); ++i) {
      StageState& st = states_[i];
      if (!st.measured()) continue;
      const bool wanted = std::any_of(st.collectors.begin(), st.collectors.end(),
                                      [](const auto& c) { return c->needs_device_events(); });
      if (!wanted) continue;
      const size_t runs = std::min(kDeviceSamples, st.samples_s.size());
      for (size_t r = 0; r < runs && st.live() && lost_.empty(); ++r) {
        check_stop();
        report_progress("device", i, r, 0);
        sample(st, true);
      }
    }
  }

  // opt_.lead_in_runs untimed runs of the stage right before its timed sample.
  void lead_in(StageState& st) {
    for (size_t r = 0; r < opt_.lead_in_runs && st.live(); ++r)
      guarded(
          st, "lead-in run", [&] { w_.run(st.index); }, &lost_);
  }

  void measure_rounds() {
    const Clock::time_point t0 = Clock::now();
    Clock::time_point last_partial = t0;
    for (size_t round = 0;; ++round) {
      for (size_t i = 0; i < states_.size() && lost_.empty(); ++i) {
        if (!states_[i].live()) continue;
        check_stop();
        report_progress("measure", i, round, seconds_since(t0));
        lead_in(states_[i]);
        if (states_[i].live()) sample(states_[i]);
      }
      if (!lost_.empty()) {
        // Stages with samples keep them (their statistics say how few); the others fail.
        for (auto& st : states_)
          if (st.samples_s.empty()) fail_if_lost(st);
        return;
      }
      const double elapsed = seconds_since(t0);
      round_s_ = elapsed / static_cast<double>(round + 1);
      bool all_done = true;
      for (size_t i = 0; i < states_.size(); ++i) {
        StageState& st = states_[i];
        if (!st.live()) continue;
        const std::vector<double> reference = stage_reference(states_, i);
        st.done = st.rule->done(SampleState{st.samples_s, elapsed, &reference});
        all_done = all_done && st.done;
      }
      if (all_done) return;  // also when no stage is live any more
      if (opt_.on_partial && seconds_since(last_partial) >= opt_.partial_interval_s) {
        emit_partial();
        last_partial = Clock::now();
      }
    }
  }

  void report_progress(const char* phase, size_t i, size_t round, double elapsed) {
    if (!opt_.progress) return;
    Progress p;
    p.phase = phase;
    p.round = round;
    p.stage_index = i;
    p.stage_count = states_.size();
    p.stage_id = states_[i].spec.id;
    p.samples = states_[i].samples_s.size();
    p.elapsed_s = elapsed;
    if (round_s_ > 0) {
      const double rounds_left =
          std::max(0.0, static_cast<double>(opt_.max_samples) - static_cast<double>(round));
      const double by_samples = rounds_left * round_s_;
      p.eta_s = std::max(0.0, std::min(opt_.max_time_s - elapsed, by_samples));
    }
    opt_.progress(p);
  }

  void emit_partial() {
    if (!opt_.on_partial) return;
    opt_.on_partial(build_run(info_, params_, states_, opt_, false));
  }

  // Training stages are checked after the measurement, untimed: from the same initial
  // parameters on the same batches, so that the timed steps never change what is compared.
  void check_training() {
    for (auto& st : states_) {
      if (!st.measured()) continue;
      guarded(st, "training check", [&] { st.trace = w_.train_trace(st.index); });
      // A stage of a training workload without a trace (a data-phase stage) is checked on
      // its output; training workloads keep each stage's last output apart, so it is read once.
      if (train_ && st.live() && !st.trace) {
        guarded(st, "output", [&] {
          st.output = w_.output(st.index);
          st.has_output = true;
        });
      }
    }
  }

  // A summary that throws is recorded as such; the stage's measurement stands.
  void collect_summaries() {
    for (auto& st : states_) {
      if (!st.measured()) continue;
      try {
        st.summaries = w_.summaries(st.index);
      } catch (const std::exception& e) {
        st.summaries = {{"error", e.what()}};
      }
    }
  }

  void release_all() {
    for (auto& st : states_) {
      if (!st.prepared) continue;
      // The measurement is done; a failing release() cannot change it, so it is not recorded.
      try {
        w_.release(st.index);
      } catch (...) {
      }
    }
  }

  Workload& w_;
  const RunInfo& info_;
  const RunnerOptions& opt_;
  std::vector<StageState> states_;
  nlohmann::json params_ = nlohmann::json::object();
  double round_s_ = 0;
  std::string lost_;    // why the device was lost; empty while it works
  bool train_ = false;  // stages of a training workload may be checked by trace or output
};

}  // namespace

RunRecord run_ladder(Workload& w, const RunInfo& info, const std::vector<size_t>& stages,
                     const RunnerOptions& opt) {
  opt.validate();
  if (info.mode != "inference" && info.mode != "train") {
    throw std::invalid_argument("run mode '" + info.mode + "' is not inference or train");
  }
  return LadderRunner(w, info, opt).run(ladder_indices(w, stages));
}

RunRecord unmeasured_run(const RunInfo& info, const nlohmann::json& params,
                         const std::string& status, const std::string& reason) {
  RunRecord run = run_header(info, params, true);
  run.status = status;
  run.reason = reason;
  return run;
}

}  // namespace sb
