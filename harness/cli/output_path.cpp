#include "harness/cli/output_path.h"

#include <unistd.h>

#include <stdexcept>
#include <system_error>

namespace sb::cli {

namespace fs = std::filesystem;

namespace {

bool writable(const fs::path& p) {
  return ::access(p.c_str(), W_OK) == 0;
}

}  // namespace

std::string unusable_output(const fs::path& path, const std::string& option) {
  const std::string named = option + " '" + path.string() + "'";
  if (path.empty()) return option + " is empty: name the file to write";
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (fs::is_directory(status)) return named + " is a folder: name a file inside it";
  if (fs::exists(status)) {
    if (!fs::is_regular_file(status)) return named + " is not a regular file";
    if (!writable(path)) return named + " is not writable";
  }
  // The folders that would be created, up to the nearest existing one: it must be a folder and
  // writable (access(2) answers for this process, root included, and for read-only mounts).
  fs::path parent = fs::absolute(path, ec).parent_path();
  while (!parent.empty() && !fs::exists(parent, ec)) {
    if (parent == parent.parent_path()) break;
    parent = parent.parent_path();
  }
  if (!fs::is_directory(parent, ec)) return named + ": " + parent.string() + " is not a folder";
  if (!writable(parent)) return named + ": cannot write in " + parent.string();
  return {};
}

void check_output(const fs::path& path, const std::string& option) {
  if (std::string why = unusable_output(path, option); !why.empty())
    throw std::invalid_argument(why);
}

}  // namespace sb::cli
