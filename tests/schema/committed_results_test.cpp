// Every stagebench/1 document committed under results/ still reads: the typed records are the
// one path readers take, so a schema change that strands old results fails here. Read into
// records and written back, each keeps every key it had at every level (unknown keys pass
// through), and a second trip changes nothing.
#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "schema/document.h"
#include "schema/user_file.h"

namespace sb {
namespace {

using json = nlohmann::json;

std::vector<std::filesystem::path> committed_documents() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(SB_RESULTS_DIR)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    const json j = read_json_file(e.path());
    if (j.is_object() && j.value("schema", "") == kSchema) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void expect_keys_kept(const json& before, const json& after, const std::string& where) {
  for (const auto& [k, v] : before.items()) EXPECT_TRUE(after.contains(k)) << where << "." << k;
}

TEST(CommittedResults, EveryDocumentReadsAndKeepsItsKeys) {
  const auto paths = committed_documents();
  ASSERT_GT(paths.size(), 10u) << "no committed results found under " << SB_RESULTS_DIR;
  for (const auto& path : paths) {
    SCOPED_TRACE(path.string());
    json doc;
    ASSERT_NO_THROW(doc = read_document(path));
    std::vector<std::string> problems;
    const json once = read_document_record(doc, problems);
    ASSERT_TRUE(problems.empty()) << problems.front();
    expect_keys_kept(doc, once, "document");
    for (size_t r = 0; r < doc["runs"].size(); ++r) {
      const std::string where = "runs[" + std::to_string(r) + "]";
      expect_keys_kept(doc["runs"][r], once["runs"][r], where);
      const json& stages = doc["runs"][r]["stages"];
      for (size_t s = 0; s < stages.size(); ++s)
        expect_keys_kept(stages[s], once["runs"][r]["stages"][s],
                         where + ".stages[" + std::to_string(s) + "]");
    }
    EXPECT_EQ(json(read_document_record(once, problems)), once);
  }
}

}  // namespace
}  // namespace sb
