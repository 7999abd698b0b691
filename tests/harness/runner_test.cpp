#include "harness/runner.h"

#include <map>
#include <set>

#include <gtest/gtest.h>

#include "instrument/kernel_log.h"
#include "schema/document.h"
#include "tests/harness/fakes.h"

namespace sb {
namespace {

using test::CountingCollector;
using test::FakeStage;
using test::FakeWorkload;

// Short and loose: stages of 0.5-8 ms and a noise target that a shared, loaded machine still
// meets, so that "ok" depends on samples and correctness here; the noise criterion has its own
// tests with deliberately noisy stages.
RunnerOptions quick_options() {
  RunnerOptions opt;
  opt.noise_target = 1.0;
  opt.min_samples = 9;
  opt.max_samples = 20;
  opt.max_time_s = 0.5;
  opt.warmup_s = 0;
  opt.warmup_runs = 1;
  opt.make_collectors = [] {
    std::vector<std::unique_ptr<Collector>> c;
    c.push_back(std::make_unique<CountingCollector>(true));
    c.push_back(std::make_unique<CountingCollector>(false));  // unavailable: left out
    return c;
  };
  return opt;
}

const RunInfo kInfo{"enformer", "tiny", "cpu", "test cpu", "inference"};

const nlohmann::json& stage_by_id(const nlohmann::json& run, const std::string& id) {
  for (const auto& s : run.at("stages")) {
    if (s.at("id") == id) return s;
  }
  throw std::runtime_error("no stage " + id);
}

// One ladder exercising every outcome, run once for all the tests that read it.
class RunnerLadderTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    workload_ = new FakeWorkload({
        FakeStage("baseline", 8),
        FakeStage("twice-as-fast", 4).claims(2.0),
        FakeStage("needs-opencl", 0.5).skipped("no OpenCL device"),
        FakeStage("broken-build", 0.5).failing_prepare(),
        FakeStage("dies-midway", 0.5).failing_run(4),
        FakeStage("wrong-numbers", 0.5).noisy_output(0.05f),
        FakeStage("int8-close-enough", 0.5).noisy_output(0.01f).in("int8"),
    });
    RunnerOptions opt = quick_options();
    opt.progress = [](const Progress& p) { phases_.insert(p.phase); };
    opt.on_partial = [](const RunRecord& run) { partials_.push_back(run); };
    run_ = new nlohmann::json(run_ladder(*workload_, kInfo, {6, 5, 4, 3, 2, 1}, opt));
  }
  static void TearDownTestSuite() {
    delete run_;
    delete workload_;
  }

  static FakeWorkload* workload_;
  static nlohmann::json* run_;
  static std::set<std::string> phases_;
  static std::vector<nlohmann::json> partials_;
};

FakeWorkload* RunnerLadderTest::workload_ = nullptr;
nlohmann::json* RunnerLadderTest::run_ = nullptr;
std::set<std::string> RunnerLadderTest::phases_;
std::vector<nlohmann::json> RunnerLadderTest::partials_;

TEST_F(RunnerLadderTest, BaselineAddedAndStagesInOrder) {
  const auto& stages = run_->at("stages");
  ASSERT_EQ(stages.size(), 7u);
  EXPECT_EQ(stages[0].at("id"), "baseline");
  EXPECT_EQ(stages[6].at("id"), "int8-close-enough");
  EXPECT_EQ(run_->at("model"), "enformer");
  EXPECT_EQ(run_->at("params").at("batch"), 4);
  EXPECT_EQ(run_->at("complete"), true);
  const auto problems = validate_document(make_document({}, nlohmann::json::array({*run_})));
  EXPECT_TRUE(problems.empty()) << problems.front();
}

TEST_F(RunnerLadderTest, Statuses) {
  EXPECT_EQ(stage_by_id(*run_, "baseline").at("status"), "ok")
      << stage_by_id(*run_, "baseline").dump(2);
  EXPECT_EQ(stage_by_id(*run_, "twice-as-fast").at("status"), "ok")
      << stage_by_id(*run_, "twice-as-fast").at("reason");
  EXPECT_EQ(stage_by_id(*run_, "int8-close-enough").at("status"), "ok")
      << stage_by_id(*run_, "int8-close-enough").at("reason");

  const auto& skipped = stage_by_id(*run_, "needs-opencl");
  EXPECT_EQ(skipped.at("status"), "skipped");
  EXPECT_EQ(skipped.at("reason"), "no OpenCL device");
  EXPECT_EQ(skipped.at("reasons"), nlohmann::json::array({"no OpenCL device"}));
  EXPECT_TRUE(skipped.at("time").at("median_ms").is_null());

  const auto& broken = stage_by_id(*run_, "broken-build");
  EXPECT_EQ(broken.at("status"), "failed");
  EXPECT_EQ(broken.at("reason"), "prepare: cannot build program for broken-build");

  const auto& died = stage_by_id(*run_, "dies-midway");
  EXPECT_EQ(died.at("status"), "failed");
  EXPECT_EQ(died.at("reason"), "run: device lost in dies-midway");
  EXPECT_EQ(died.at("samples_ms").size(), 2u);  // warm-up run 1, samples 2 and 3, 4th throws
  EXPECT_TRUE(died.at("speedup").at("vs_baseline").is_null());
}

TEST_F(RunnerLadderTest, WorkloadCalls) {
  EXPECT_EQ(workload_->prepared_[2], 0);  // skipped: never prepared
  EXPECT_EQ(workload_->runs_[2], 0);
  EXPECT_EQ(workload_->runs_[3], 0);
  EXPECT_EQ(workload_->released_[0], 1);
  EXPECT_EQ(workload_->released_[1], 1);
  EXPECT_EQ(workload_->released_[3], 0);  // prepare failed: nothing to release
}

TEST_F(RunnerLadderTest, InterleavedRoundsGiveEqualSampleCounts) {
  const auto n = stage_by_id(*run_, "baseline").at("time").at("samples").get<int>();
  EXPECT_GE(n, 9);
  EXPECT_LE(n, 20);
  for (const char* id : {"twice-as-fast", "wrong-numbers", "int8-close-enough"}) {
    const auto& s = stage_by_id(*run_, id);
    EXPECT_EQ(s.at("time").at("samples"), n) << id;
    EXPECT_EQ(s.at("samples_ms").size(), static_cast<size_t>(n)) << id;
    EXPECT_FALSE(s.at("time").at("stop_reason").is_null()) << id;
    // One collector set per stage: begun once, started and stopped once per sample.
    const auto& counters = s.at("counters");
    EXPECT_EQ(counters.at("counting_begins").at("value"), 1) << id;
    EXPECT_EQ(counters.at("counting_starts").at("value"), n) << id;
    EXPECT_EQ(counters.at("counting_stops").at("value"), n) << id;
    EXPECT_FALSE(counters.contains("absent_starts")) << id;
    EXPECT_EQ(s.at("memory").at("host_peak_bytes"), 4096) << id;
  }
}

TEST_F(RunnerLadderTest, SpeedupOfAStageTwiceAsFast) {
  const auto& baseline = stage_by_id(*run_, "baseline").at("speedup");
  EXPECT_DOUBLE_EQ(baseline.at("vs_baseline").get<double>(), 1);
  EXPECT_TRUE(baseline.at("vs_previous").is_null());

  const auto& fast = stage_by_id(*run_, "twice-as-fast").at("speedup");
  const double s = fast.at("vs_baseline").get<double>();
  EXPECT_GE(s, 1.6);
  EXPECT_LE(s, 2.5);
  const auto& ci = fast.at("ci95");
  EXPECT_LE(ci[0].get<double>(), s);
  EXPECT_GE(ci[1].get<double>(), s);
  EXPECT_DOUBLE_EQ(fast.at("vs_previous").get<double>(), s);  // previous is the baseline
  // wrong-numbers' previous measured stage is twice-as-fast (skipped/failed ones in between).
  const double prev = stage_by_id(*run_, "wrong-numbers").at("speedup").at("vs_previous");
  EXPECT_GT(prev, 1.5);
  EXPECT_LT(prev, 8.0);
}

TEST_F(RunnerLadderTest, CorrectnessFailureMakesTheStageInvalid) {
  const auto& wrong = stage_by_id(*run_, "wrong-numbers");
  EXPECT_EQ(wrong.at("status"), "invalid");
  EXPECT_EQ(wrong.at("correctness").at("pass"), false);
  EXPECT_NE(wrong.at("reason").get<std::string>().find("correctness: cosine"), std::string::npos)
      << wrong.at("reason");

  const auto& base = stage_by_id(*run_, "baseline").at("correctness");
  EXPECT_EQ(base.at("pass"), true);
  EXPECT_NEAR(base.at("cosine").get<double>(), 1, 1e-12);
  EXPECT_EQ(stage_by_id(*run_, "int8-close-enough").at("correctness").at("basis"), "int8");
}

TEST_F(RunnerLadderTest, ThroughputFromCounts) {
  const auto& t = stage_by_id(*run_, "baseline");
  const double median_s = t.at("time").at("median_ms").get<double>() / 1e3;
  EXPECT_NEAR(t.at("throughput").at("items_per_s").get<double>(), 4 / median_s, 1e-6);
  EXPECT_NEAR(t.at("throughput").at("gflops").get<double>(), 2e6 / median_s / 1e9, 1e-9);
  EXPECT_TRUE(t.at("throughput").at("roofline_frac").is_null());  // no ceilings given
}

TEST_F(RunnerLadderTest, ProgressAndPartialResults) {
  EXPECT_TRUE(phases_.count("warmup"));
  EXPECT_TRUE(phases_.count("measure"));
  ASSERT_FALSE(partials_.empty());
  EXPECT_EQ(partials_.front().at("complete"), false);
  EXPECT_EQ(stage_by_id(partials_.front(), "needs-opencl").at("status"), "skipped");
}

// Every key of the schema is present in every stage object, whatever its status.
TEST_F(RunnerLadderTest, StageShapeIsPinned) {
  const std::map<std::string, std::vector<std::string>> blocks = {
      {"claim", {"source", "text", "speedup"}},
      {"time",
       {"median_ms", "mean_ms", "stddev_ms", "min_ms", "max_ms", "p10_ms", "p90_ms", "cv",
        "samples", "stop_reason"}},
      {"speedup", {"vs_baseline", "ci95", "vs_previous"}},
      {"throughput", {"items_per_s", "gflops", "gbytes_per_s", "roofline_frac"}},
      {"memory", {"host_peak_bytes", "device_peak_bytes"}},
      {"correctness", {"cosine", "max_abs", "rel_l2", "tolerance", "basis", "pass"}},
  };
  for (const auto& stage : run_->at("stages")) {
    const std::string id = stage.at("id");
    for (const char* key :
         {"id", "title", "claim", "status", "reason", "reasons", "time", "speedup", "throughput",
          "memory", "counters", "opencl", "correctness", "samples_ms"}) {
      EXPECT_TRUE(stage.contains(key)) << id << " lacks " << key;
    }
    for (const auto& [block, keys] : blocks) {
      ASSERT_TRUE(stage.at(block).is_object()) << id << "." << block;
      for (const auto& k : keys)
        EXPECT_TRUE(stage.at(block).contains(k)) << id << "." << block << "." << k;
    }
  }
  EXPECT_EQ(stage_by_id(*run_, "twice-as-fast").at("claim").at("speedup"), 2.0);
  EXPECT_TRUE(stage_by_id(*run_, "baseline").at("claim").at("speedup").is_null());
}

TEST(Runner, NoisyStageIsInvalidAndSaysWhyItStopped) {
  FakeWorkload w({FakeStage("baseline", 1).alternating(3)});
  RunnerOptions opt = quick_options();
  opt.noise_target = 0.01;
  opt.min_samples = 5;
  opt.max_samples = 8;
  opt.max_time_s = 5;
  const nlohmann::json run = run_ladder(w, kInfo, {}, opt);
  const auto& s = run.at("stages")[0];
  EXPECT_EQ(s.at("status"), "invalid");
  EXPECT_NE(s.at("reason").get<std::string>().find("noise"), std::string::npos) << s.at("reason");
  EXPECT_EQ(s.at("time").at("stop_reason").get<std::string>().rfind("max samples 8 (noise", 0), 0u)
      << s.at("time").at("stop_reason");
}

// --quality paired-noise reaches the verdicts: a stage alone has no reference and is invalid
// for that reason; in a ladder each stage is judged by its paired noise (named in its stop
// reason or its reasons), stage 0 included.
TEST(Runner, PairedNoiseJudgesEachStageAgainstItsReference) {
  RunnerOptions opt = quick_options();
  opt.quality = {"paired-noise"};
  opt.min_samples = 3;
  opt.max_samples = 6;
  FakeWorkload alone({FakeStage("baseline", 1)});
  const nlohmann::json one = run_ladder(alone, kInfo, {}, opt);
  const auto& s = one.at("stages")[0];
  EXPECT_EQ(s.at("status"), "invalid");
  EXPECT_NE(s.at("reason").get<std::string>().find("no other stage measured in the same rounds"),
            std::string::npos)
      << s.at("reason");
  FakeWorkload pair({FakeStage("baseline", 2), FakeStage("next", 1)});
  const nlohmann::json two = run_ladder(pair, kInfo, {0, 1}, opt);
  ASSERT_EQ(two.at("stages").size(), 2u);
  for (const auto& stage : two.at("stages")) {
    const std::string why = stage.at("status") == "ok"
                                ? stage.at("time").at("stop_reason").get<std::string>()
                                : stage.at("reason").get<std::string>();
    EXPECT_NE(why.find("paired noise"), std::string::npos) << why;
    EXPECT_EQ(why.find("no other stage"), std::string::npos) << stage.at("id") << ": " << why;
  }
}

TEST(Runner, MaxTimeStopsTheLadder) {
  FakeWorkload w({FakeStage("baseline", 1).alternating(3)});
  RunnerOptions opt = quick_options();
  opt.noise_target = 0.01;
  opt.max_samples = 1000;
  opt.max_time_s = 0.02;
  const nlohmann::json run = run_ladder(w, kInfo, {0}, opt);
  const auto& time = run.at("stages")[0].at("time");
  EXPECT_EQ(time.at("stop_reason").get<std::string>().rfind("max time 0.02 s (noise", 0), 0u)
      << time.at("stop_reason");
  EXPECT_LT(time.at("samples").get<int>(), 1000);
}

// A workload whose backend has a kernel log, noting whether its profiling events were on at
// each run, and a collector that reads device events, counting its samples.
class EventsWorkload : public FakeWorkload {
 public:
  using FakeWorkload::FakeWorkload;
  void run(size_t s) override {
    (log.recording() ? runs_with_events : runs_without) += 1;
    FakeWorkload::run(s);
  }
  CollectorSources sources() override {
    CollectorSources c;
    c.kernels = &log;
    return c;
  }
  KernelLog log;
  int runs_with_events = 0, runs_without = 0;
};

class DeviceEventsCollector : public CountingCollector {
 public:
  explicit DeviceEventsCollector(const KernelLog* log) : log_(log) {}
  std::string name() const override { return "device"; }
  bool needs_device_events() const override { return true; }
  void start() override {
    if (!log_->recording()) throw std::logic_error("started with the events off");
    CountingCollector::start();
  }

 private:
  const KernelLog* log_;
};

// The timed samples run with the backend's events off and without the collectors that need
// them; those collectors then see min(10, samples) device samples of their own, events on,
// which add no sample to the stage's time. The events stay on after the run.
TEST(Runner, DeviceEventCollectorsRunInDeviceSamplesAfterTheTimedOnes) {
  for (const int max_samples : {4, 30}) {
    SCOPED_TRACE(max_samples);
    EventsWorkload w({FakeStage("baseline", 0.5)});
    RunnerOptions opt = quick_options();
    opt.min_samples = max_samples, opt.max_samples = max_samples, opt.max_time_s = 5;
    opt.warmup_runs = 0;
    const KernelLog* log = &w.log;
    opt.make_collectors = [log] {
      std::vector<std::unique_ptr<Collector>> c;
      c.push_back(std::make_unique<CountingCollector>(true));
      c.push_back(std::make_unique<DeviceEventsCollector>(log));
      return c;
    };
    const nlohmann::json run = run_ladder(w, kInfo, {}, opt);
    const auto& s = run.at("stages")[0];
    // Measured, whatever the noise verdict: without a warm-up the first sample can take several
    // times the others on a busy machine ("invalid", noise 309%, in a cold-cache proof run).
    const std::string status = s.at("status");
    ASSERT_TRUE(status == "ok" || status == "invalid") << s.dump();
    const int timed = s.at("time").at("samples").get<int>();
    EXPECT_EQ(timed, max_samples);
    const auto& counters = s.at("counters");
    EXPECT_EQ(counters.at("counting_starts").at("value").get<int>(), timed);
    EXPECT_EQ(counters.at("device_starts").at("value").get<int>(), std::min(10, timed));
    EXPECT_EQ(w.runs_without, timed);
    EXPECT_EQ(w.runs_with_events, std::min(10, timed));
    EXPECT_TRUE(w.log.recording());
  }
}

TEST(Runner, SkippedBaselineLeavesOthersWithoutReference) {
  FakeWorkload w({FakeStage("baseline", 1).skipped("not here"), FakeStage("next", 1)});
  const nlohmann::json run = run_ladder(w, kInfo, {1}, quick_options());
  const auto& next = run.at("stages")[1];
  EXPECT_EQ(next.at("status"), "invalid");
  EXPECT_NE(next.at("reason").get<std::string>().find("no baseline output"), std::string::npos);
  EXPECT_TRUE(next.at("speedup").at("vs_baseline").is_null());
  EXPECT_TRUE(next.at("correctness").at("pass").is_null());
}

// Records the order of every run() call by stage.
class OrderWorkload : public FakeWorkload {
 public:
  using FakeWorkload::FakeWorkload;
  void run(size_t s) override {
    order.push_back(s);
    FakeWorkload::run(s);
  }
  std::vector<size_t> order;
};

TEST(Runner, LeadInRunsPrecedeEachTimedSampleOfTheirStage) {
  OrderWorkload w({FakeStage("baseline", 0.2), FakeStage("other", 0.2)});
  RunnerOptions opt = quick_options();
  opt.lead_in_runs = 2;
  const nlohmann::json run = run_ladder(w, kInfo, {1}, opt);
  const auto n = run.at("stages")[0].at("time").at("samples").get<size_t>();
  ASSERT_GE(n, 9u);
  EXPECT_EQ(run.at("stages")[1].at("time").at("samples"), n);
  // One warm-up run a stage, then rounds of (2 untimed + 1 timed) per stage, stage by stage;
  // the collectors bracket only the timed ones.
  std::vector<size_t> expected{0, 1};
  for (size_t r = 0; r < n; ++r)
    for (size_t s : {0u, 1u}) expected.insert(expected.end(), 3, s);
  EXPECT_EQ(w.order, expected);
  for (const auto& st : run.at("stages"))
    EXPECT_EQ(st.at("counters").at("counting_starts").at("value"), n) << st.at("id");
}

TEST(Runner, LeadInRunsAreBounded) {
  FakeWorkload w({FakeStage("baseline", 0.1)});
  RunnerOptions opt = quick_options();
  opt.lead_in_runs = kMaxLeadInRuns + 1;
  EXPECT_THROW(run_ladder(w, kInfo, {}, opt), std::invalid_argument);
}

TEST(Runner, RejectsBadArguments) {
  FakeWorkload w({FakeStage("baseline", 0.1)});
  EXPECT_THROW(run_ladder(w, kInfo, {3}, quick_options()), std::invalid_argument);
  RunnerOptions bad = quick_options();
  bad.max_samples = 3;  // below min_samples
  EXPECT_THROW(run_ladder(w, kInfo, {}, bad), std::invalid_argument);
  RunInfo train = kInfo;
  train.mode = "training";
  EXPECT_THROW(run_ladder(w, train, {}, quick_options()), std::invalid_argument);
}

}  // namespace
}  // namespace sb
