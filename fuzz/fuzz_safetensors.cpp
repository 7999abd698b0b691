// .safetensors weights and inputs (`--weights`, `--input`): the header check, then every tensor
// converted to fp32.
#include "fuzz/fuzz_input.h"
#include "models/io/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = sb::fuzz::input_file(data, size, ".safetensors");
  try {
    const auto file = sb::SafetensorsFile::open(path);
    for (const auto& name : file.names()) (void)file.read(name);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
