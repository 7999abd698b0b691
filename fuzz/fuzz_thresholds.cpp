// Thresholds files (`compare --thresholds`): rules and the inconclusive policy.
#include <optional>
#include <string>

#include "fuzz/fuzz_input.h"
#include "reports/thresholds.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    std::optional<sb::InconclusivePolicy> policy;
    const auto rules = sb::parse_thresholds(text, &policy);
    for (const auto& r : rules)
      (void)sb::rule_matches(r, "enformer", "tiny", "cpu", "tf32", "time");
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
