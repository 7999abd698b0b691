#include "schema/document.h"

#include "schema/json_text.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace sb {

nlohmann::json make_document(const nlohmann::json& context, const nlohmann::json& runs) {
  if (!runs.is_array()) throw std::invalid_argument("make_document: runs must be an array");
  return {{"schema", kSchema},
          {"context", context.is_null() ? nlohmann::json::object() : context},
          {"runs", runs}};
}

namespace {

[[noreturn]] void throw_io(const std::filesystem::path& path, const std::string& what) {
  throw std::runtime_error("cannot write " + path.string() + ": " + what + ": " +
                           std::strerror(errno));
}

void write_all(int fd, const std::string& text, const std::filesystem::path& path) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_io(path, "write failed");
    }
    done += static_cast<size_t>(n);
  }
}

}  // namespace

void write_json_atomic(const std::filesystem::path& path, const nlohmann::json& document) {
  const std::filesystem::path dir =
      path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::string tmpl = (dir / (path.filename().string() + ".tmp.XXXXXX")).string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw_io(path, "cannot create a temporary file in " + dir.string());
  ::fchmod(fd, 0644);  // mkstemp's 0600 would make results unreadable to others
  const std::string tmp = tmpl;
  try {
    // Strict UTF-8 would throw on a stray byte in a kernel or device name; replace instead.
    write_all(fd, document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
              path);
    if (::fsync(fd) != 0) throw_io(path, "fsync failed");
    if (::close(fd) != 0) {
      fd = -1;
      throw_io(path, "close failed");
    }
    fd = -1;
    if (::rename(tmp.c_str(), path.c_str()) != 0) throw_io(path, "rename failed");
  } catch (...) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  // Make the rename itself durable; failing here loses nothing already written.
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

std::vector<std::string> validate_document(const nlohmann::json& document) {
  std::vector<std::string> problems;
  if (!document.is_object()) {
    problems.push_back(std::string("document: expected a JSON object, got ") +
                       document.type_name());
    return problems;
  }
  auto schema = document.find("schema");
  if (schema == document.end()) {
    problems.push_back("schema: missing (expected \"" + std::string(kSchema) + "\")");
  } else if (!schema->is_string() || schema->get<std::string>() != kSchema) {
    problems.push_back("schema: unsupported " + schema->dump() + " (expected \"" + kSchema + "\")");
  }
  auto need = [&](const char* key, bool (nlohmann::json::*is)() const noexcept,
                  const char* expected) {
    auto it = document.find(key);
    if (it == document.end()) {
      problems.push_back(std::string("document.") + key + ": missing");
    } else if (!((*it).*is)()) {
      problems.push_back(std::string("document.") + key + ": expected " + expected + ", got " +
                         it->type_name());
    } else {
      return true;
    }
    return false;
  };
  need("context", &nlohmann::json::is_object, "an object");
  if (need("runs", &nlohmann::json::is_array, "an array")) {
    const auto& runs = document.at("runs");
    for (size_t i = 0; i < runs.size(); ++i)
      read_run(runs[i], "runs[" + std::to_string(i) + "]", problems);
  }
  return problems;
}

nlohmann::json read_document(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path.string() + ": " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  if (in.bad()) throw std::runtime_error("cannot read " + path.string());

  const nlohmann::json document = parse_json_text(text, path.string());
  const auto problems = validate_document(document);
  if (!problems.empty()) {
    std::string msg = path.string() + ": not a " + kSchema + " document:";
    const size_t shown = std::min<size_t>(problems.size(), 10);
    for (size_t i = 0; i < shown; ++i) msg += "\n  " + problems[i];
    if (problems.size() > shown) {
      msg += "\n  ... and " + std::to_string(problems.size() - shown) + " more";
    }
    throw std::invalid_argument(msg);
  }
  return document;
}

}  // namespace sb
