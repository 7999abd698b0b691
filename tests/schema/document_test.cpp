#include "schema/document.h"
#include "schema/json_text.h"

#include <fstream>
#include <random>

#include <gtest/gtest.h>

namespace sb {
namespace {

namespace fs = std::filesystem;

class ResultJsonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sb_result_json_" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write_text(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }

  static nlohmann::json minimal_run() {
    return {{"model", "enformer"},
            {"size", "tiny"},
            {"backend", "cpu"},
            {"device", "cpu"},
            {"mode", "inference"},
            {"params", {{"batch", 1}}},
            {"stages", {{{"id", "baseline"}, {"title", "Baseline"}, {"status", "ok"}}}}};
  }

  // The message must name the file and contain `needle`.
  static void expect_rejected(const fs::path& p, const std::string& needle) {
    try {
      read_document(p);
      FAIL() << "accepted " << p;
    } catch (const std::exception& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(p.string()), std::string::npos) << msg;
      EXPECT_NE(msg.find(needle), std::string::npos) << msg;
    }
  }

  fs::path dir_;
};

TEST_F(ResultJsonTest, MakeDocumentCarriesTheSchema) {
  const auto doc = make_document({{"host", "h"}}, nlohmann::json::array({minimal_run()}));
  EXPECT_EQ(doc.at("schema"), "stagebench/1");
  EXPECT_EQ(doc.at("context").at("host"), "h");
  EXPECT_TRUE(validate_document(doc).empty());
  EXPECT_THROW(make_document({}, nlohmann::json::object()), std::invalid_argument);
}

TEST_F(ResultJsonTest, NonFiniteNumbersAreUnknown) {
  EXPECT_FALSE(finite_or_unknown(std::nan("")).has_value());
  EXPECT_FALSE(finite_or_unknown(INFINITY).has_value());
  EXPECT_EQ(finite_or_unknown(1.5), 1.5);
}

TEST_F(ResultJsonTest, AtomicWriteRoundTripsAndLeavesNoTemporary) {
  const auto doc = make_document({{"host", "h"}}, nlohmann::json::array({minimal_run()}));
  const fs::path p = dir_ / "out.json";
  write_json_atomic(p, doc);
  write_json_atomic(p, doc);  // replacing an existing file works too
  EXPECT_EQ(read_document(p), doc);
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    ++files;
    EXPECT_EQ(entry.path().filename(), "out.json");
  }
  EXPECT_EQ(files, 1u);
}

TEST_F(ResultJsonTest, AtomicWriteFailureNamesThePath) {
  const fs::path p = dir_ / "no_such_dir" / "out.json";
  try {
    write_json_atomic(p, nlohmann::json::object());
    FAIL() << "wrote into a missing directory";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
  }
}

TEST_F(ResultJsonTest, RejectsTruncatedFileWithPosition) {
  const std::string full = make_document({}, nlohmann::json::array({minimal_run()})).dump(2);
  expect_rejected(write_text("cut.json", full.substr(0, full.size() / 2)), "line ");
}

TEST_F(ResultJsonTest, RejectsWrongOrMissingSchema) {
  auto doc = make_document({}, nlohmann::json::array());
  doc["schema"] = "stagebench/2";
  expect_rejected(write_text("v2.json", doc.dump()), "schema");
  doc.erase("schema");
  expect_rejected(write_text("none.json", doc.dump()), "schema: missing");
}

TEST_F(ResultJsonTest, RejectsNonObjectAndMissingRuns) {
  expect_rejected(write_text("array.json", "[1, 2]"), "expected a JSON object");
  expect_rejected(write_text("noruns.json", R"({"schema":"stagebench/1","context":{}})"),
                  "runs: missing");
  expect_rejected(dir_ / "absent.json", "cannot open");
}

TEST_F(ResultJsonTest, ValidationNamesWrongTypesByPath) {
  auto run = minimal_run();
  run["mode"] = "training";
  run["stages"][0]["status"] = "great";
  run["stages"][0]["time"] = {{"median_ms", "fast"}};
  run["stages"][0]["speedup"] = {{"ci95", {1}}};
  const auto problems = validate_document(make_document({}, nlohmann::json::array({run})));
  ASSERT_EQ(problems.size(), 4u) << nlohmann::json(problems).dump(1);
  EXPECT_NE(problems[0].find("runs[0].mode"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("runs[0].stages[0].status"), std::string::npos) << problems[1];
  EXPECT_NE(problems[2].find("runs[0].stages[0].time.median_ms"), std::string::npos) << problems[2];
  EXPECT_NE(problems[3].find("runs[0].stages[0].speedup.ci95"), std::string::npos) << problems[3];
}

}  // namespace
}  // namespace sb

namespace sb {
namespace {

TEST(JsonText, DeepNestingIsRefusedBeforeParsing) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  try {
    parse_json_text(deep, "deep.json");
    FAIL() << "accepted 100000 levels";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("deep.json: nested deeper than 128 levels at line 1, "
                                         "column 129"),
              std::string::npos)
        << e.what();
  }
  // Brackets inside strings are text, not nesting.
  EXPECT_NO_THROW(parse_json_text("{\"a\": \"" + std::string(1000, '[') + "\"}", "s.json"));
}

TEST(JsonText, NumbersOutOfRangeAndSyntaxErrorsNameTheSource) {
  EXPECT_THROW(
      {
        try {
          parse_json_text("{\"x\": 1e999}", "big.json");
        } catch (const std::invalid_argument& e) {
          EXPECT_STREQ(e.what(),
                       "big.json: a number is outside the range of a double: 1e999 at line 1, "
                       "column 7 (byte 7)");
          throw;
        }
      },
      std::invalid_argument);
  try {
    parse_json_text("{\n  \"x\": tru\n}", "bad.json");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json: not valid JSON at line 2"), std::string::npos)
        << e.what();
  }
}

// nlohmann keeps the last of two equal keys, so {"status": "failed", "status": "ok"} read as ok
// (issue 29): a second key is refused, naming where it is.
TEST(JsonText, DuplicateKeysAreRefusedWithTheirPlace) {
  const auto message = [](const std::string& text) -> std::string {
    try {
      parse_json_text(text, "d.json");
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(message(R"({"runs": [{"stages": [{}, {"status": "failed", "status": "ok"}]}]})"),
            "d.json: duplicate key \"status\" in runs[0].stages[1] (a JSON object names each key "
            "once)");
  EXPECT_EQ(message(R"({"a": 1, "b": {"a": 2}, "a": 3})"),
            "d.json: duplicate key \"a\" at the top level (a JSON object names each key once)");
  // The same key spelt with an escape is the same key.
  EXPECT_NE(message(R"({"ab": 1, "a\u0062": 2})").find("duplicate key \"ab\""), std::string::npos);
  // Equal keys in different objects are not duplicates.
  EXPECT_EQ(message(R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 1}, {"x": 2}]})"), "");
  const nlohmann::json j = parse_json_text(R"({"a": [1, {"b": null}], "c": "d"})", "d.json");
  EXPECT_EQ(j, nlohmann::json::parse(R"({"a": [1, {"b": null}], "c": "d"})"));
}

}  // namespace
}  // namespace sb
