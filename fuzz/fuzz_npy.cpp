// NumPy .npy inputs (`infer`, `run --input`).
#include "fuzz/fuzz_input.h"
#include "models/io/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = sb::fuzz::input_file(data, size, ".npy");
  try {
    (void)sb::read_npy(path);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
