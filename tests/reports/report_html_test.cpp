// The HTML report: self-contained (no script, nothing fetched), escapes the document's text, and
// renders in a real headless browser (Debian's chromium) with the table and the SVG charts in the
// DOM and a non-trivial screenshot. The browser tests skip when chromium is not installed.
#include <gtest/gtest.h>

#include "tests/common/temp_dir.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>

#include "reports/report.h"
#include "tests/reports/fixture.h"

namespace {

namespace fs = std::filesystem;

std::string fixture_html() {
  return sb::report_html({{"fixture.json", sb::test::fixture_document()}});
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(ReportHtml, IsOneSelfContainedPage) {
  const std::string html = fixture_html();
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(count(html, "<style>"), 1u);
  EXPECT_EQ(count(html, "<table class=\"ladder\">"), 2u);  // one per run
  EXPECT_EQ(count(html, "<svg "), 6u);                     // three charts per run
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  // The only URL is the SVG namespace, which is an identifier, never fetched.
  const std::regex url("(https?:)?//[a-zA-Z0-9.-]+");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), url); it != std::sregex_iterator();
       ++it)
    EXPECT_EQ(it->str(), "http://www.w3.org") << "external reference " << it->str();
  EXPECT_GT(count(html, "class=\"error-bar\""), 10u);
  EXPECT_GE(count(html, "class=\"marker\""), 8u);     // claims on the speedup charts
  EXPECT_EQ(count(html, "class=\"reference\""), 2u);  // 1x line on the speedup charts
}

TEST(ReportHtml, TrainingRunAddsThePhasesTableAndStackedCharts) {
  std::ifstream in(std::string(SB_REPORTS_TEST_DIR) + "/fixtures/train.json");
  const std::string html = sb::report_html({{"train.json", nlohmann::json::parse(in)}});
  EXPECT_EQ(count(html, "<table class=\"ladder\">"), 1u);
  EXPECT_EQ(count(html, "<table class=\"ladder phases\">"), 1u);
  EXPECT_LT(html.find("<table class=\"ladder\">"), html.find("Training step phases"));
  EXPECT_EQ(count(html, "<svg "), 5u);  // phases and memory split, then the usual three
  // Four training stages: five phases and four memory parts each.
  EXPECT_EQ(count(html, "class=\"bar segment\""), 4u * 5 + 4u * 4);
  EXPECT_NE(html.find("amp forward: 1.6 (26%)"), std::string::npos);
  EXPECT_NE(html.find("loss Δ 3.2e-6, cos 0.999999"), std::string::npos);
  EXPECT_EQ(sb::report_html({{"fixture.json", sb::test::fixture_document()}})
                .find("Training step phases"),
            std::string::npos);
}

TEST(ReportHtml, EscapesTheDocumentsText) {
  nlohmann::json doc = sb::test::fixture_document();
  doc["runs"][0]["stages"][1]["id"] = "<script>alert(1)</script>";
  doc["runs"][0]["device"] = "\"><img src=x onerror=alert(1)>";
  const std::string html = sb::report_html({{"<b>name</b>", doc}});
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<b>name"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
}

// --- headless browser -------------------------------------------------------------------------

std::string find_chromium() {
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/bin"})
    for (const char* name : {"chromium", "chromium-browser"}) {
      const fs::path p = fs::path(dir) / name;
      if (access(p.c_str(), X_OK) == 0) return p.string();
    }
  return "";
}

using sb::testing::TempDir;

std::string run_browser(const std::string& chromium, const TempDir& dir, const std::string& what) {
  const std::string cmd = "timeout 60 " + chromium +
                          " --headless --no-sandbox --disable-gpu --disable-background-networking"
                          " --disable-component-update --disable-sync --no-first-run"
                          " --disable-dev-shm-usage --user-data-dir=" +
                          (dir.path() / "profile").string() + " " + what + " file://" +
                          (dir.path() / "report.html").string() + " 2>/dev/null";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  std::array<char, 65536> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  pclose(p);
  return out;
}

class ReportHtmlBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = find_chromium();
    if (chromium_.empty()) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh adds it)";
    std::ofstream(dir_.path() / "report.html") << fixture_html();
  }
  std::string chromium_;
  TempDir dir_;
};

TEST_F(ReportHtmlBrowser, DomHasTheTablesAndTheCharts) {
  const std::string dom = run_browser(chromium_, dir_, "--dump-dom");
  ASSERT_NE(dom.find("<body"), std::string::npos) << "no DOM from the browser:\n"
                                                  << dom.substr(0, 2000);
  EXPECT_EQ(count(dom, "<table class=\"ladder\">"), 2u);
  EXPECT_EQ(count(dom, "<svg "), 6u);
  EXPECT_GT(count(dom, "<rect class=\"bar\""), 20u);
  EXPECT_NE(dom.find("graph-compile"), std::string::npos);
  EXPECT_NE(dom.find("Cumulative speedup"), std::string::npos);
}

TEST_F(ReportHtmlBrowser, ScreenshotIsANonTrivialPng) {
  run_browser(chromium_, dir_,
              "--window-size=1400,2400 --hide-scrollbars --screenshot=" +
                  (dir_.path() / "shot.png").string());
  const fs::path shot = dir_.path() / "shot.png";
  ASSERT_TRUE(fs::exists(shot)) << "chromium wrote no screenshot";
  std::ifstream in(shot, std::ios::binary);
  const std::string png((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  // A blank page of this size compresses to a few KB; tables and charts make it far larger.
  EXPECT_GT(png.size(), 40000u) << "screenshot looks empty";
}

}  // namespace
