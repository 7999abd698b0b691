#include "tests/cli/plugin_model.h"

#include <stdexcept>

#include "models/backend_sources.h"

namespace sb::testing {
namespace {

const std::vector<StageSpec>& plugin_ladder() {
  static const std::vector<StageSpec> ladder = {StageSpec(
      "scaled", "Scaled ramp", Claim{"test", "a model registered by a test", std::nullopt})};
  return ladder;
}

// y = scale * (0, 1, ..., 63): enough work to time, and an output the check can compare.
class PluginWorkload : public Workload {
 public:
  PluginWorkload(int64_t scale, std::unique_ptr<Backend> backend)
      : scale_(scale), backend_(std::move(backend)) {}
  const std::vector<StageSpec>& stages() const override { return plugin_ladder(); }
  std::string skip_reason(size_t) const override { return {}; }
  void prepare(size_t) override {}
  void run(size_t) override {
    y_.resize(64);
    for (size_t i = 0; i < y_.size(); ++i) y_[i] = static_cast<float>(scale_ * int64_t(i));
  }
  std::vector<float> output(size_t) override { return y_; }
  WorkCounts counts(size_t) const override { return {}; }
  CollectorSources sources() override { return collector_sources(*backend_); }
  nlohmann::json params() const override { return {{"batch", 1}, {"scale", scale_}}; }

 private:
  int64_t scale_;
  std::unique_ptr<Backend> backend_;
  std::vector<float> y_;
};

}  // namespace

ModelEntry plugin_model_entry() {
  ModelEntry m;
  m.name = "plugin";
  m.summary = "a model registered from the test folder (tests/cli/plugin_model.cpp)";
  m.sizes = {"tiny"};
  m.ladder = plugin_ladder;
  m.options = {{"scale", "the ramp's slope (default: 1)", OptionType::integer, {}, "scale"}};
  m.check = [](const WorkloadRequest& r) {
    if (r.batch > 1) throw std::invalid_argument("plugin: --batch does not apply");
  };
  m.make = [](const WorkloadRequest& r, std::unique_ptr<Backend> backend) {
    if (r.size != "tiny")
      throw std::invalid_argument("plugin: unknown size '" + r.size + "' (sizes: tiny)");
    return std::make_unique<PluginWorkload>(option_integer(r.options, "scale", 1),
                                            std::move(backend));
  };
  return m;
}

}  // namespace sb::testing
