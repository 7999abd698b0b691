#pragma once
// The committed fixtures under tests/gui/fixtures.
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace sb::viewer::test {

inline std::string fixture_path(const std::string& name) {
  return std::string(SB_GUI_FIXTURES) + "/" + name;
}

inline nlohmann::json fixture_json(const std::string& name) {
  std::ifstream in(fixture_path(name));
  return nlohmann::json::parse(in);
}

}  // namespace sb::viewer::test
