#pragma once
// Reading a result file for the report and compare commands: read_document's validation, and
// every failure (including the JSON library's own, such as a number too large for a double) as
// std::invalid_argument naming the file, which the CLI turns into exit code 2.
#include <stdexcept>
#include <string>

#include "schema/document.h"

namespace sb::cli {

inline nlohmann::json load_result_file(const std::string& path) {
  try {
    return read_document(path);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    throw std::invalid_argument(what.find(path) == std::string::npos ? path + ": " + what : what);
  }
}

}  // namespace sb::cli
