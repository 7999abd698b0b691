#pragma once
// Test doubles: a workload whose stages busy-wait for set times, and a counting collector.
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "collectors/collector.h"
#include "contract/workload.h"

namespace sb::test {

// Sleeps rather than spins: on a shared, loaded machine a spinning stage is preempted for whole
// scheduler slices, more often the longer it spins, which skews the ratio of two stages; a
// sleeper only pays its wake-up latency, which is small next to the sleep.
inline void pause_for_ms(double ms) {
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
}

struct FakeStage {
  FakeStage(std::string stage_id, double run_ms) : id(std::move(stage_id)), ms(run_ms) {}
  FakeStage& alternating(double other_ms) {
    alt_ms = other_ms;
    return *this;
  }
  FakeStage& skipped(std::string why) {
    skip = std::move(why);
    return *this;
  }
  FakeStage& failing_prepare() {
    prepare_throws = true;
    return *this;
  }
  FakeStage& failing_run(int nth) {
    run_throws_at = nth;
    return *this;
  }
  FakeStage& noisy_output(float amount) {
    output_noise = amount;
    return *this;
  }
  FakeStage& in(std::string precision) {
    basis = std::move(precision);
    return *this;
  }
  FakeStage& claims(double speedup) {
    claimed_speedup = speedup;
    return *this;
  }

  std::string id;
  double ms;          // time per run
  double alt_ms = 0;  // when > 0, every other run takes this long instead (noise)
  std::string skip;   // skip_reason()
  bool prepare_throws = false;
  int run_throws_at = 0;   // the n-th run() (1-based, warm-up included) throws
  float output_noise = 0;  // added to the reference output, alternating sign
  std::string basis = "fp32";
  std::optional<double> claimed_speedup;
};

class FakeWorkload : public Workload {
 public:
  explicit FakeWorkload(std::vector<FakeStage> stages) : fake_(std::move(stages)) {
    for (const auto& f : fake_) {
      StageSpec spec;
      spec.id = f.id;
      spec.title = "Stage " + f.id;
      spec.claim = {"seed 000", "claimed text for " + f.id, f.claimed_speedup};
      spec.tolerance.basis = f.basis;
      spec.tolerance.min_cosine = f.basis == "int8" ? 0.99 : 0.99999;
      specs_.push_back(spec);
    }
    runs_.assign(fake_.size(), 0);
    prepared_.assign(fake_.size(), 0);
    released_.assign(fake_.size(), 0);
  }

  const std::vector<StageSpec>& stages() const override { return specs_; }
  std::string skip_reason(size_t s) const override { return fake_[s].skip; }
  void prepare(size_t s) override {
    if (fake_[s].prepare_throws)
      throw std::runtime_error("cannot build program for " + fake_[s].id);
    ++prepared_[s];
  }
  void run(size_t s) override {
    const FakeStage& f = fake_[s];
    ++runs_[s];
    if (f.run_throws_at > 0 && runs_[s] == f.run_throws_at) {
      throw std::runtime_error("device lost in " + f.id);
    }
    pause_for_ms(f.alt_ms > 0 && runs_[s] % 2 == 0 ? f.alt_ms : f.ms);
  }
  std::vector<float> output(size_t s) override {
    std::vector<float> out(64);
    for (size_t i = 0; i < out.size(); ++i) {
      const float sign = i % 2 ? 1.f : -1.f;
      out[i] = std::sin(0.3f * static_cast<float>(i)) + sign * fake_[s].output_noise;
    }
    return out;
  }
  WorkCounts counts(size_t s) const override { return {2e6, 1e6, 4, "sequences"}; }
  CollectorSources sources() override { return {}; }
  nlohmann::json params() const override { return {{"batch", 4}, {"length", 128}}; }
  void release(size_t s) override { ++released_[s]; }

  std::vector<int> runs_, prepared_, released_;

 private:
  std::vector<FakeStage> fake_;
  std::vector<StageSpec> specs_;
};

// Counts its calls; reports them as a counter so that tests can read them from the JSON.
class CountingCollector : public Collector {
 public:
  explicit CountingCollector(bool available = true) : available_(available) {}
  std::string name() const override { return available_ ? "counting" : "absent"; }
  bool available() const override { return available_; }
  std::string unavailable_reason() const override { return available_ ? "" : "no such thing"; }
  void begin_stage(const CollectorSources&) override {
    ++begins_;
    starts_ = stops_ = 0;
  }
  void start() override {
    if (running_) throw std::logic_error("start() while running");
    running_ = true;
    ++starts_;
  }
  void stop() override {
    if (!running_) throw std::logic_error("stop() while stopped");
    running_ = false;
    ++stops_;
  }
  void report(StageRecord& stage, double items) const override {
    stage.counters[name() + "_begins"] = {begins_, std::nullopt, "software", {}, {}};
    stage.counters[name() + "_starts"] = {starts_, starts_ / items, "software", {}, {}};
    stage.counters[name() + "_stops"] = {stops_, std::nullopt, "software", {}, {}};
    stage.memory.host_peak_bytes = 4096;
  }

 private:
  bool available_;
  bool running_ = false;
  int begins_ = 0, starts_ = 0, stops_ = 0;
};

}  // namespace sb::test
