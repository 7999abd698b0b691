// Hostile result files (issue 16): wrong types in the fields the validator used to skip, a
// negative sample count, a FIFO instead of a file, nesting a recursive parser cannot survive.
// Each is refused naming the file and the field.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "schema/atomic_file.h"
#include "schema/document.h"
#include "schema/user_file.h"
#include "tests/common/temp_dir.h"

namespace sb {
namespace {

using testing::TempDir;

nlohmann::json minimal_document() {
  const nlohmann::json run = {
      {"model", "enformer"},
      {"size", "tiny"},
      {"backend", "cpu"},
      {"device", "cpu"},
      {"mode", "inference"},
      {"params", {{"batch", 1}}},
      {"stages", {{{"id", "baseline"}, {"title", "Baseline"}, {"status", "ok"}}}}};
  return make_document({{"host", "h"}}, nlohmann::json::array({run}));
}

// read_document's message for `doc` written to a file; "" when accepted.
std::string rejection(const TempDir& dir, const nlohmann::json& doc) {
  const auto path = dir.write("r.json", doc.dump());
  try {
    read_document(path);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(HostileDocuments, WrongTypesInEveryCheckedFieldAreNamed) {
  const TempDir dir;
  struct Case {
    const char* pointer;  // JSON pointer of the field made wrong
    nlohmann::json value;
    const char* named;  // what the message must name
  };
  for (const Case& c : {
           Case{"/runs/0/stages/0/counters", "many", "runs[0].stages[0].counters"},
           Case{"/runs/0/stages/0/counters", {{"cycles", 5}}, "runs[0].stages[0].counters.cycles"},
           Case{"/runs/0/stages/0/counters",
                {{"cycles", {{"value", "lots"}}}},
                "runs[0].stages[0].counters.cycles.value"},
           Case{"/runs/0/stages/0/samples_ms", {1.0, "x"}, "runs[0].stages[0].samples_ms[1]"},
           Case{"/runs/0/stages/0/samples_ms", "slow", "runs[0].stages[0].samples_ms"},
           Case{"/runs/0/stages/0/reasons", {1}, "runs[0].stages[0].reasons[0]"},
           Case{"/runs/0/stages/0/reasons", "why", "runs[0].stages[0].reasons"},
           Case{"/runs/0/params", {1, 2}, "runs[0].params"},
           Case{"/runs/0/params", nullptr, "runs[0].params"},
           Case{"/context", "host", "document.context"},
           Case{"/runs/0/stages/0/time", {{"samples", -3}}, "runs[0].stages[0].time.samples"},
           Case{"/runs/0/stages/0/time", {{"samples", 2.5}}, "runs[0].stages[0].time.samples"},
           // The hostile-input campaign (issue 29): taken into the median as measured.
           Case{"/runs/0/stages/0/samples_ms",
                {1.0, -2.0},
                "runs[0].stages[0].samples_ms[1]: a wall time cannot be negative"},
       }) {
    nlohmann::json doc = minimal_document();
    doc[nlohmann::json::json_pointer(c.pointer)] = c.value;
    const std::string msg = rejection(dir, doc);
    EXPECT_NE(msg.find("r.json"), std::string::npos) << c.pointer << ": " << msg;
    EXPECT_NE(msg.find(c.named), std::string::npos) << c.pointer << ": " << msg;
  }
  EXPECT_EQ(rejection(dir, minimal_document()), "");
}

TEST(HostileDocuments, DeepNestingInContextIsRefusedNotParsed) {
  const TempDir dir;
  std::string text = minimal_document().dump();
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  text.replace(text.find("{\"host\":\"h\"}"), 12, "{\"host\":" + deep + "}");
  const auto path = dir.write("deep.json", text);
  try {
    read_document(path);
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("deep.json: nested deeper than"), std::string::npos)
        << e.what();
  }
}

TEST(HostileDocuments, FifoIsRefusedWithoutWaitingForAWriter) {
  const TempDir dir;
  const auto fifo = dir.file("pipe.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    read_document(fifo);
    FAIL() << "accepted a FIFO";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("pipe.json: is a named pipe (FIFO)"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(read_user_file(dir.path()), std::invalid_argument);  // a directory
}

TEST(AtomicText, ReplacesWholeAndKeepsTheOldFileWhenItCannotWrite) {
  const TempDir dir;
  const auto path = dir.file("report.md");
  write_text_atomic(path, "first\n");
  write_text_atomic(path, "second\n");
  EXPECT_EQ(read_user_file(path), "second\n");
  size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path()))
    ++files;
  EXPECT_EQ(files, 1u) << "no temporary left behind";
  // The target is a directory: the rename fails after the text was written, and nothing of the
  // attempt is left behind.
  const auto blocked = dir.file("blocked");
  std::filesystem::create_directory(blocked);
  std::filesystem::create_directory(blocked / "inside");
  EXPECT_THROW(write_text_atomic(blocked, "x"), std::runtime_error);
  EXPECT_TRUE(std::filesystem::is_directory(blocked / "inside"));
}

}  // namespace
}  // namespace sb
