// Result documents (stagebench/1) as `report`, `compare`, `merge` and the viewer read them: the
// bounded reader and validator, then every run through the lenient record reader and back.
// Bad input must be std::invalid_argument; anything else escaping is a finding.
#include "fuzz/fuzz_input.h"
#include "schema/document.h"
#include "schema/records.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = sb::fuzz::input_file(data, size, ".json");
  nlohmann::json doc;
  try {
    doc = sb::read_document(path);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  for (size_t i = 0; i < doc["runs"].size(); ++i) {
    std::vector<std::string> problems;
    const sb::RunRecord run =
        sb::read_run(doc["runs"][i], "runs[" + std::to_string(i) + "]", problems);
    (void)nlohmann::json(run).dump();
  }
  return 0;
}
