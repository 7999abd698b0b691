// DeepFM's training table (`run deepfm --data FILE.tsv`): the reader, then the preprocessing the
// run applies to what it read (both cleanings, the split, the encoding).
#include "fuzz/fuzz_input.h"
#include "models/deepfm/data/preprocess.h"
#include "models/deepfm/data/tsv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = sb::fuzz::input_file(data, size, ".tsv");
  try {
    const sb::deepfm::Table table = sb::deepfm::read_tsv(path);
    (void)sb::deepfm::preprocess(table, sb::deepfm::Cleaning::regex, 1);
    (void)sb::deepfm::preprocess(table, sb::deepfm::Cleaning::literal, 1);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
