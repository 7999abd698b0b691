#pragma once
// What a call refuses as bad input: the message of the std::invalid_argument it throws (the
// CLI's exit 2), or "" when it throws none. For the tests of the knob parsers, which compare
// the whole message.
#include <stdexcept>
#include <string>

namespace sb::testing {

template <typename Call>
std::string refusal(Call call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace sb::testing
