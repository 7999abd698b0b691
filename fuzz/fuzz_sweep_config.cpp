// Sweep files (`stagebench sweep`): the bounded JSON reader, expansion into jobs, their keys.
#include "fuzz/fuzz_input.h"
#include "harness/sweep_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = sb::fuzz::input_file(data, size, ".json");
  try {
    const auto jobs = sb::read_sweep_file(path);
    for (const auto& j : jobs) (void)sb::job_key(j);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
