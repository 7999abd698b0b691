#pragma once
// The committed fixtures under tests/gui/fixtures.
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "schema/records.h"

namespace sb::viewer::test {

inline std::string fixture_path(const std::string& name) {
  return std::string(SB_GUI_FIXTURES) + "/" + name;
}

inline nlohmann::json fixture_json(const std::string& name) {
  std::ifstream in(fixture_path(name));
  return nlohmann::json::parse(in);
}

// JSON as the viewer holds it: read into schema's records, leniently (what is malformed is
// unknown), as a hostile test needs.
inline RunRecord run_record(const nlohmann::json& run) {
  std::vector<std::string> ignored;
  return read_run(run, "run", ignored);
}
inline StageRecord stage_record(const nlohmann::json& stage) {
  std::vector<std::string> ignored;
  return read_stage(stage, "stage", ignored);
}
inline DocumentRecord document_record(const nlohmann::json& document) {
  std::vector<std::string> ignored;
  return read_document_record(document, ignored);
}

}  // namespace sb::viewer::test
