// Bounded, seeded fuzzing: 600 mutations of a valid document (wrong types, huge numbers, deep
// nesting, hostile strings, missing keys, truncated and corrupted text) through parsing,
// validation, every report format and compare; and mutated thresholds files through their parser.
// Success or a clean exception (std::exception with a message) are fine; a crash or a hang is not.
#include <gtest/gtest.h>

#include <chrono>
#include <random>

#include "reports/compare.h"
#include "reports/compare_render.h"
#include "reports/report.h"
#include "reports/thresholds.h"
#include "schema/document.h"
#include "tests/reports/fixture.h"

namespace {

using json = nlohmann::json;

// Where to mutate: every node down to a modest depth, and the first elements of long arrays
// (descending into a 500-deep nest or a 300-element array for every edit only costs time).
void collect_pointers(const json& j, const json::json_pointer& at,
                      std::vector<json::json_pointer>& out, int depth = 0) {
  out.push_back(at);
  if (depth >= 10) return;
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      collect_pointers(*it, at / it.key(), out, depth + 1);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size() && i < 16; ++i) collect_pointers(j[i], at / i, out, depth + 1);
  }
}

json deep(size_t depth) {
  json v = json::array();
  for (size_t i = 0; i < depth; ++i) v = json::array({std::move(v)});
  return v;
}

json hostile_value(std::mt19937& g) {
  switch (g() % 14) {
    case 0:
      return nullptr;
    case 1:
      return true;
    case 2:
      return 1.7976931348623157e308;
    case 3:
      return -1.7976931348623157e308;
    case 4:
      return 4.9e-324;
    case 5:
      return std::numeric_limits<uint64_t>::max();
    case 6:
      return std::numeric_limits<int64_t>::min();
    case 7:
      return std::string(5000, 'x');
    case 8:
      return "<script>\"'&|,\n\r\t\x01";
    case 9:
      return json::array();
    case 10:
      return json::object();
    case 11:
      return deep(500);
    case 12:
      return json::array({1, "two", nullptr, 4.5, json::object()});
    default: {
      json big = json::array();
      for (int i = 0; i < 300; ++i) big.push_back(static_cast<double>(g() % 1000) + 0.5);
      return big;
    }
  }
}

json mutate(const json& original, std::mt19937& g) {
  json doc = original;
  const int edits = 1 + static_cast<int>(g() % 3);
  for (int e = 0; e < edits; ++e) {
    std::vector<json::json_pointer> pointers;
    collect_pointers(doc, json::json_pointer(), pointers);
    const json::json_pointer at = pointers[g() % pointers.size()];
    if (at.empty()) {
      doc = hostile_value(g);
      continue;
    }
    json& parent = doc[at.parent_pointer()];
    switch (g() % 3) {
      case 0:
        doc[at] = hostile_value(g);
        break;
      case 1:  // remove the key or element
        if (parent.is_object())
          parent.erase(at.back());
        else if (parent.is_array() && !parent.empty())
          parent.erase(parent.size() - 1);
        break;
      default:  // duplicate a sibling into an array, or swap in a copy of the whole document
        if (parent.is_array())
          parent.push_back(doc[at]);
        else
          doc[at] = original;
        break;
    }
  }
  return doc;
}

std::string corrupt_text(const std::string& text, std::mt19937& g) {
  std::string t = text;
  switch (g() % 3) {
    case 0:
      t.resize(g() % t.size());
      break;  // truncated
    case 1:
      for (int i = 0; i < 5; ++i) t[g() % t.size()] = static_cast<char>(g() % 256);
      break;
    default:
      t.insert(g() % t.size(), std::string(1 + g() % 8, "{}[]\",:0e-9"[g() % 11]));
  }
  return t;
}

// Everything the CLI does with a document it reads; must not throw.
void exercise(const json& doc, const json& valid) {
  (void)sb::validate_document(doc);
  const std::vector<sb::ReportInput> in = {{"fuzz.json", doc}};
  EXPECT_NO_THROW({
    (void)sb::report_markdown(in);
    (void)sb::report_csv(in);
    (void)sb::report_html(in);
  });
  sb::CompareOptions o;
  o.thresholds_text = "*/*/*/time: +5%\n*/*/*/cosine: >= 0.9999\n*/*/*/speedup: >= 1.1\n";
  EXPECT_NO_THROW({
    const sb::CompareResult a = sb::compare_documents(valid, doc, o);
    const sb::CompareResult b = sb::compare_documents(doc, valid, o);
    (void)sb::compare_markdown(a, o, "a", "b");
    (void)sb::compare_json(b, o, "a", "b").dump(-1, ' ', false, json::error_handler_t::replace);
  });
}

TEST(Fuzz, MutatedDocumentsNeverCrash) {
  const json valid = sb::test::fixture_document({}, 8);
  ASSERT_TRUE(sb::validate_document(valid).empty());
  const std::string text = valid.dump();
  std::mt19937 g(20240601);
  const auto start = std::chrono::steady_clock::now();
  size_t parsed = 0, rejected = 0;
  // 600 rounds (2,000 until 2026-11-28, the suite's slowest test after the ladders), a quarter of
  // them corrupted text. The open-ended search is the libFuzzer targets' (scripts/fuzz-ci.sh).
  constexpr int kRounds = 600;
  for (int i = 0; i < kRounds; ++i) {
    if (i % 4 == 3) {
      json doc;
      try {
        doc = json::parse(corrupt_text(text, g));
      } catch (const json::exception&) {
        ++rejected;  // the clean failure read_document reports with the file name
        continue;
      }
      ++parsed;
      exercise(doc, valid);
    } else {
      exercise(mutate(valid, g), valid);
    }
  }
  // Most corrupted texts must fail to parse, so the corruption reaches the parser, and some parse.
  EXPECT_GT(rejected, kRounds / 8u);
  EXPECT_EQ(parsed + rejected, kRounds / 4u);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("seconds", std::to_string(seconds));
}

TEST(Fuzz, MutatedThresholdsParseOrFailCleanly) {
  const std::string rules =
      "# gate\nenformer/cpu/*/time: +5%\n*/*/*/cosine: >= 0.9999\n"
      "enformer/*/graph-compile/speedup_vs_baseline: >= 1.3\n*/tiny/*/*/memory: < 2e9\n";
  ASSERT_EQ(sb::parse_thresholds(rules).size(), 4u);
  std::mt19937 g(7);
  size_t errors = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string t = rules;
    for (int k = 0; k < 3; ++k) t[g() % t.size()] = "*/:%#<>=+-.e9 \nax\x01"[g() % 18];
    try {
      for (const auto& r : sb::parse_thresholds(t)) {
        EXPECT_TRUE(std::isfinite(r.value)) << t;
        EXPECT_GT(r.line, 0);
      }
    } catch (const std::invalid_argument& e) {
      ++errors;
      EXPECT_EQ(std::string(e.what()).rfind("line ", 0), 0u) << e.what();
    }
  }
  EXPECT_GT(errors, 100u);
}

}  // namespace
