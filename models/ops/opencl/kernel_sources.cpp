// The override folder of embedded_cl_source, and the common prelude (kernel_sources.h).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>

#include "models/ops/opencl/kernel_sources.h"

namespace sb {

std::string_view embedded_cl_source(std::string_view file_name) {
  const std::string_view embedded = compiled_in_cl_source(file_name);  // unknown names throw
  const char* dir = std::getenv("STAGEBENCH_CL_SOURCE_DIR");
  if (!dir || !*dir) return embedded;
  // The texts live as long as the process (callers keep string_views into them), each under its
  // path: a later call with the variable unset or elsewhere gets what that names.
  static std::mutex mutex;
  static std::map<std::string, std::string> replaced;
  const std::filesystem::path path = std::filesystem::path(dir) / std::string(file_name);
  const std::lock_guard lock(mutex);
  if (auto it = replaced.find(path.string()); it != replaced.end()) return it->second;
  std::ifstream in(path, std::ios::binary);
  if (!in) return embedded;
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof())
    throw std::runtime_error("STAGEBENCH_CL_SOURCE_DIR: cannot read " + path.string());
  return replaced.emplace(path.string(), text.str()).first->second;
}

std::string cl_common_source() {
  return std::string(embedded_cl_source("activation_codes.h")) + "\n" +
         std::string(embedded_cl_source("common.cl")) + "\n";
}

}  // namespace sb
