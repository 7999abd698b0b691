// The runner under a stop request (a signal) and a lost device (issue 16): it stops within a
// run even in a long warm-up, keeps a snapshot, frees what stages hold; a lost device fails the
// stages not measured yet and keeps the samples of those that were.
#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "contract/device_lost.h"
#include "harness/runner.h"
#include "schema/document.h"
#include "tests/harness/fakes.h"

namespace sb {
namespace {

using test::FakeStage;
using test::FakeWorkload;

const RunInfo kOpenclInfo{"enformer", "tiny", "opencl", "test device", "inference"};

RunnerOptions options() {
  RunnerOptions opt;
  opt.noise_target = 1.0;
  opt.min_samples = 3;
  opt.max_samples = 6;
  opt.max_time_s = 5;
  opt.warmup_s = 0;
  opt.warmup_runs = 1;
  return opt;
}

// A FakeWorkload whose device goes away at its n-th run overall (warm-up runs count).
class LosingWorkload : public FakeWorkload {
 public:
  LosingWorkload(std::vector<FakeStage> stages, int lost_at)
      : FakeWorkload(std::move(stages)), lost_at_(lost_at) {}
  void run(size_t s) override {
    if (++total_ >= lost_at_) throw DeviceLost("device lost: CL_DEVICE_NOT_AVAILABLE (-2)");
    FakeWorkload::run(s);
  }

 private:
  int lost_at_;
  int total_ = 0;
};

// What the schema's validator says of a document holding `run` alone.
std::vector<std::string> problems(const nlohmann::json& run) {
  return validate_document(make_document(nlohmann::json::object(), nlohmann::json::array({run})));
}

const nlohmann::json& stage(const nlohmann::json& run, const std::string& id) {
  for (const auto& s : run.at("stages"))
    if (s.at("id") == id) return s;
  throw std::runtime_error("no stage " + id);
}

TEST(RunnerStop, StopsDuringALongWarmUpWithASnapshotAndReleases) {
  FakeWorkload w({FakeStage("baseline", 2), FakeStage("next", 2)});
  std::atomic<bool> stop{false};
  RunnerOptions opt = options();
  opt.warmup_s = 3600;  // an hour of warm-up: only the stop request can end it
  opt.stop = &stop;
  std::vector<RunRecord> partials;
  opt.on_partial = [&](const RunRecord& r) { partials.push_back(r); };
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop.store(true);
  });
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(run_ladder(w, kOpenclInfo, {1}, opt), RunStopped);
  stopper.join();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
  ASSERT_FALSE(partials.empty());
  EXPECT_EQ(partials.back().complete, false);
  EXPECT_EQ(problems(partials.back()), std::vector<std::string>{});
  EXPECT_EQ(w.released_[0], 1);  // prepared stages are released on the way out
  EXPECT_EQ(w.released_[1], 1);
}

TEST(RunnerStop, StopsBetweenRounds) {
  FakeWorkload w({FakeStage("baseline", 1)});
  std::atomic<bool> stop{false};
  RunnerOptions opt = options();
  opt.min_samples = 1000;
  opt.max_samples = 1000;
  opt.max_time_s = 3600;
  opt.stop = &stop;
  int partials = 0;
  opt.on_partial = [&](const RunRecord&) { ++partials; };
  opt.progress = [&](const Progress& p) {
    if (p.phase == "measure" && p.samples >= 5) stop.store(true);
  };
  EXPECT_THROW(run_ladder(w, kOpenclInfo, {}, opt), RunStopped);
  EXPECT_LE(w.runs_[0], 10);
  EXPECT_GE(partials, 2);  // after the warm-up, and the last one at the stop
}

TEST(RunnerDeviceLost, InTheRoundsKeepsSamplesAndFailsTheRest) {
  // 3 stages x 1 warm-up run, then rounds of 3: lost at run 3 + 3*2 + 2 = 11, in round 3.
  LosingWorkload w({FakeStage("baseline", 1), FakeStage("b", 1), FakeStage("c", 1)}, 11);
  RunnerOptions opt = options();
  opt.min_samples = 5;
  opt.max_samples = 5;
  const nlohmann::json run = run_ladder(w, kOpenclInfo, {1, 2}, opt);
  EXPECT_EQ(problems(run), std::vector<std::string>{});
  EXPECT_NE(stage(run, "baseline").at("status"), "failed");
  EXPECT_EQ(stage(run, "baseline").at("time").at("samples"), 3);
  EXPECT_EQ(stage(run, "b").at("status"), "failed");
  EXPECT_NE(stage(run, "b").dump().find("CL_DEVICE_NOT_AVAILABLE"), std::string::npos);
  EXPECT_NE(stage(run, "c").at("status"), "failed");  // measured twice before, kept
  EXPECT_EQ(w.released_[0] + w.released_[1] + w.released_[2], 3);
}

TEST(RunnerDeviceLost, InTheWarmUpFailsEveryStageNotMeasured) {
  LosingWorkload w({FakeStage("baseline", 1), FakeStage("b", 1), FakeStage("c", 1)}, 2);
  const nlohmann::json run = run_ladder(w, kOpenclInfo, {1, 2}, options());
  EXPECT_EQ(problems(run), std::vector<std::string>{});
  EXPECT_EQ(stage(run, "baseline").at("status"), "failed");  // warmed up, never measured
  EXPECT_EQ(stage(run, "b").at("status"), "failed");
  EXPECT_EQ(stage(run, "c").at("status"), "failed");
  EXPECT_NE(stage(run, "c").dump().find("device lost"), std::string::npos);
  EXPECT_EQ(w.runs_[2], 0);  // the lost device is not tried again
}

}  // namespace
}  // namespace sb
