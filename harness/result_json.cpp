#include "harness/result_json.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace sb {

nlohmann::json make_document(const nlohmann::json& context, const nlohmann::json& runs) {
  if (!runs.is_array()) throw std::invalid_argument("make_document: runs must be an array");
  return {{"schema", kSchema},
          {"context", context.is_null() ? nlohmann::json::object() : context},
          {"runs", runs}};
}

nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
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

namespace {

// Collects problems while walking the document; `where` is a JSON-path-like prefix.
class Validator {
 public:
  std::vector<std::string> problems;

  void add(const std::string& where, const std::string& what) {
    problems.push_back(where + ": " + what);
  }

  // Present and of the kind `ok` accepts; `required` says whether absence is a problem.
  template <typename Pred>
  bool check(const nlohmann::json& obj, const std::string& where, const char* key, Pred ok,
             const char* expected, bool required) {
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) add(where + "." + key, "missing");
      return false;
    }
    if (!ok(*it)) {
      add(where + "." + key, std::string("expected ") + expected + ", got " + it->type_name());
      return false;
    }
    return true;
  }

  void string_field(const nlohmann::json& o, const std::string& w, const char* k, bool required) {
    check(
        o, w, k, [](const auto& v) { return v.is_string(); }, "a string", required);
  }
  void string_or_null(const nlohmann::json& o, const std::string& w, const char* k) {
    check(
        o, w, k, [](const auto& v) { return v.is_string() || v.is_null(); }, "a string or null",
        false);
  }
  void numeric_or_null(const nlohmann::json& o, const std::string& w, const char* k) {
    check(
        o, w, k, [](const auto& v) { return v.is_number() || v.is_null(); }, "a number or null",
        false);
  }
  // An optional object-or-null block; returns true when it is an object to look into.
  bool block(const nlohmann::json& o, const std::string& w, const char* k) {
    return check(
               o, w, k, [](const auto& v) { return v.is_object() || v.is_null(); },
               "an object or null", false) &&
           o.at(k).is_object();
  }

  void stage(const nlohmann::json& s, const std::string& w) {
    if (!s.is_object()) {
      add(w, std::string("expected an object, got ") + s.type_name());
      return;
    }
    string_field(s, w, "id", true);
    string_field(s, w, "title", false);
    static const std::set<std::string> kStatuses = {"ok", "skipped", "failed", "invalid"};
    if (check(
            s, w, "status", [](const auto& v) { return v.is_string(); }, "a string", true) &&
        !kStatuses.count(s.at("status").get<std::string>())) {
      add(w + ".status",
          "'" + s.at("status").get<std::string>() + "' is not one of ok, skipped, failed, invalid");
    }
    string_or_null(s, w, "reason");
    if (block(s, w, "claim")) numeric_or_null(s.at("claim"), w + ".claim", "speedup");
    if (block(s, w, "time")) {
      const auto& t = s.at("time");
      for (const char* k : {"median_ms", "mean_ms", "stddev_ms", "min_ms", "max_ms", "p10_ms",
                            "p90_ms", "cv", "samples"}) {
        numeric_or_null(t, w + ".time", k);
      }
      string_or_null(t, w + ".time", "stop_reason");
    }
    if (block(s, w, "speedup")) {
      const auto& sp = s.at("speedup");
      numeric_or_null(sp, w + ".speedup", "vs_baseline");
      numeric_or_null(sp, w + ".speedup", "vs_previous");
      check(
          sp, w + ".speedup", "ci95",
          [](const auto& v) {
            return v.is_null() ||
                   (v.is_array() && v.size() == 2 && (v[0].is_number() || v[0].is_null()) &&
                    (v[1].is_number() || v[1].is_null()));
          },
          "[lo, hi] or null", false);
    }
    if (block(s, w, "throughput")) {
      for (const char* k : {"items_per_s", "gflops", "gbytes_per_s", "roofline_frac"}) {
        numeric_or_null(s.at("throughput"), w + ".throughput", k);
      }
    }
    if (block(s, w, "memory")) {
      for (const char* k : {"host_peak_bytes", "device_peak_bytes"}) {
        numeric_or_null(s.at("memory"), w + ".memory", k);
      }
    }
    block(s, w, "counters");
    block(s, w, "opencl");
    if (block(s, w, "correctness")) {
      const auto& c = s.at("correctness");
      for (const char* k : {"cosine", "max_abs", "rel_l2", "tolerance"}) {
        numeric_or_null(c, w + ".correctness", k);
      }
      check(
          c, w + ".correctness", "pass",
          [](const auto& v) { return v.is_boolean() || v.is_null(); }, "a boolean or null", false);
    }
    check(
        s, w, "samples_ms", [](const auto& v) { return v.is_array(); }, "an array", false);
  }

  void run(const nlohmann::json& r, const std::string& w) {
    if (!r.is_object()) {
      add(w, std::string("expected an object, got ") + r.type_name());
      return;
    }
    for (const char* k : {"model", "size", "backend", "device"}) string_field(r, w, k, true);
    if (check(
            r, w, "mode", [](const auto& v) { return v.is_string(); }, "a string", true)) {
      const auto mode = r.at("mode").get<std::string>();
      if (mode != "inference" && mode != "train") {
        add(w + ".mode", "'" + mode + "' is not inference or train");
      }
    }
    check(
        r, w, "params", [](const auto& v) { return v.is_object(); }, "an object", true);
    if (check(
            r, w, "stages", [](const auto& v) { return v.is_array(); }, "an array", true)) {
      const auto& stages = r.at("stages");
      for (size_t i = 0; i < stages.size(); ++i) {
        stage(stages[i], w + ".stages[" + std::to_string(i) + "]");
      }
    }
  }
};

}  // namespace

std::vector<std::string> validate_document(const nlohmann::json& document) {
  Validator v;
  if (!document.is_object()) {
    v.add("document", std::string("expected a JSON object, got ") + document.type_name());
    return v.problems;
  }
  auto schema = document.find("schema");
  if (schema == document.end()) {
    v.add("schema", "missing (expected \"" + std::string(kSchema) + "\")");
  } else if (!schema->is_string() || schema->get<std::string>() != kSchema) {
    v.add("schema", "unsupported " + schema->dump() + " (expected \"" + kSchema + "\")");
  }
  v.check(
      document, "document", "context", [](const auto& x) { return x.is_object(); }, "an object",
      true);
  if (v.check(
          document, "document", "runs", [](const auto& x) { return x.is_array(); }, "an array",
          true)) {
    const auto& runs = document.at("runs");
    for (size_t i = 0; i < runs.size(); ++i) v.run(runs[i], "runs[" + std::to_string(i) + "]");
  }
  return v.problems;
}

namespace {

std::string line_and_column(const std::string& text, size_t byte) {
  // nlohmann's byte is 1-based: the position of the character that failed.
  const size_t end = std::min(byte > 0 ? byte - 1 : 0, text.size());
  size_t line = 1, column = 1;
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + " (byte " +
         std::to_string(byte) + ")";
}

}  // namespace

nlohmann::json read_document(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path.string() + ": " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  if (in.bad()) throw std::runtime_error("cannot read " + path.string());

  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(path.string() + ": not valid JSON at " +
                             line_and_column(text, e.byte) + ": " + e.what());
  } catch (const nlohmann::json::exception& e) {  // e.g. a number out of range such as 1e400
    throw std::runtime_error(path.string() + ": unreadable JSON: " + e.what());
  }
  const auto problems = validate_document(document);
  if (!problems.empty()) {
    std::string msg = path.string() + ": not a " + kSchema + " document:";
    const size_t shown = std::min<size_t>(problems.size(), 10);
    for (size_t i = 0; i < shown; ++i) msg += "\n  " + problems[i];
    if (problems.size() > shown) {
      msg += "\n  ... and " + std::to_string(problems.size() - shown) + " more";
    }
    throw std::runtime_error(msg);
  }
  return document;
}

}  // namespace sb
