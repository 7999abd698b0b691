// A new model needs its own declaration and one registration (issue 28): a model declared in
// the test folder (plugin_model.cpp) is listed, its option is in run's help and list, it runs
// through `run` in-process, and its option and the built-in models' are refused across.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/cli/app.h"
#include "models/registry.h"
#include "schema/document.h"
#include "tests/cli/plugin_model.h"
#include "tests/common/temp_dir.h"

namespace {

struct Outcome {
  int status;
  std::string out, err;
};

// The command line in this process, after the plugin's one registration.
Outcome stagebench(std::vector<std::string> args) {
  static const bool registered = [] {
    sb::register_model(sb::testing::plugin_model_entry());
    return true;
  }();
  (void)registered;
  args.insert(args.begin(), "stagebench");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int status = sb::cli::run_command_line(static_cast<int>(argv.size()), argv.data());
  Outcome o{status, ::testing::internal::GetCapturedStdout(),
            ::testing::internal::GetCapturedStderr()};
  return o;
}

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

TEST(PluginModel, ListAndHelpShowItsOption) {
  const Outcome list = stagebench({"list"});
  EXPECT_EQ(list.status, 0) << list.err;
  EXPECT_TRUE(has(list.out, "plugin: a model registered from the test folder")) << list.out;
  EXPECT_TRUE(has(list.out, "  --scale: the ramp's slope (default: 1)")) << list.out;
  const Outcome help = stagebench({"run", "--help"});
  EXPECT_EQ(help.status, 0) << help.err;
  EXPECT_TRUE(has(help.out, "--scale")) << help.out;
  EXPECT_TRUE(has(help.out, "plugin: the ramp's slope (default: 1)")) << help.out;
}

TEST(PluginModel, RunsThroughTheCliWithItsOption) {
  const sb::testing::TempDir dir("sb_plugin_");
  const std::string out = (dir.path() / "r.json").string();
  const Outcome r =
      stagebench({"run", "plugin", "--size", "tiny", "--scale", "3", "--no-ceilings", "-q",
                  "--max-time", "0.3", "--warmup", "0", "--noise", "0.5", "-o", out});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const nlohmann::json doc = sb::read_document(out);
  ASSERT_EQ(doc["runs"].size(), 1u);
  const nlohmann::json& run = doc["runs"][0];
  EXPECT_EQ(run["model"], "plugin");
  EXPECT_EQ(run["params"]["scale"], 3);
  // Measured and checked: "ok", or "invalid" when this busy machine's noise stayed above the
  // target (the status of the timing, not of the model).
  const nlohmann::json& stage = run["stages"][0];
  EXPECT_TRUE(stage["status"] == "ok" || stage["status"] == "invalid") << stage.dump();
  EXPECT_GT(stage["time"]["samples"].get<int>(), 0);
  EXPECT_EQ(stage["correctness"]["pass"], true);
}

TEST(PluginModel, OptionsAreRefusedAcrossModels) {
  const Outcome theirs = stagebench({"run", "plugin", "--size", "tiny", "--heads", "4"});
  EXPECT_EQ(theirs.status, 2);
  EXPECT_TRUE(has(theirs.err, "plugin: heads and eps apply to geneformer only")) << theirs.err;
  const Outcome mine = stagebench({"run", "enformer", "--size", "tiny", "--scale", "2"});
  EXPECT_EQ(mine.status, 2);
  EXPECT_TRUE(has(mine.err, "enformer: scale applies to plugin only")) << mine.err;
  const Outcome bad = stagebench({"run", "plugin", "--size", "tiny", "--scale", "0"});
  EXPECT_EQ(bad.status, 2) << "declared integer options are checked as >= 1";
}

}  // namespace
