// Geneformer cell files (`run geneformer --input`, `infer`): token ids and masks from .npy or
// .safetensors (chosen by the input's magic, as a user's file name would), ids checked against
// a small vocabulary.
#include <cstring>

#include "fuzz/fuzz_input.h"
#include "models/geneformer/cell_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const bool npy = size >= 6 && std::memcmp(data, "\x93NUMPY", 6) == 0;
  const auto path = sb::fuzz::input_file(data, size, npy ? ".npy" : ".safetensors");
  try {
    (void)sb::geneformer::read_cells(path, {}, 64);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
