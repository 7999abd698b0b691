// DeepFM's training table (`run deepfm --data FILE.tsv`).
#include "fuzz/fuzz_input.h"
#include "models/deepfm/data/tsv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = sb::fuzz::input_file(data, size, ".tsv");
  try {
    (void)sb::deepfm::read_tsv(path);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
