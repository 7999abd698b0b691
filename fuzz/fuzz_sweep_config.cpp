// Sweep files (`stagebench sweep`): the bounded JSON reader, expansion into jobs, their keys.
// Models' own options reach a sweep entry through their declarations (contract/model_options.h);
// this target links no model, so it declares the four the models take in sweeps (integers and
// numbers), so that entries setting them are expanded rather than refused as unknown keys.
#include "fuzz/fuzz_input.h"
#include "harness/sweep_config.h"

namespace {

const std::vector<sb::OptionSpec>& declared_options() {
  static const std::vector<sb::OptionSpec> options = {
      {"heads", "attention heads", sb::OptionType::integer, {}, "heads"},
      {"eps", "LayerNorm eps", sb::OptionType::number, {}, "eps", true},
      {"length", "input length", sb::OptionType::integer, {}, "length"},
      {"target", "centre tokens kept", sb::OptionType::integer, {}, "target"}};
  return options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = sb::fuzz::input_file(data, size, ".json");
  try {
    const auto jobs = sb::read_sweep_file(path, declared_options());
    for (const auto& j : jobs) (void)sb::job_key(j);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
