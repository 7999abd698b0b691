// layout::find as a pure function: a fake filesystem (a set of paths) stands for a source tree,
// an installed prefix or both, so no install is needed.
#include "layout/data_dirs.h"

#include <gtest/gtest.h>

#include <set>

namespace {

namespace fs = std::filesystem;
using sb::layout::DataDir;

// GNUInstallDirs' defaults: bin/, share/stagebench/, share/doc/stagebench/.
const sb::layout::Installed kDefault{"../share/stagebench", "../share/doc/stagebench"};

std::optional<fs::path> find_in(const std::set<fs::path>& files, DataDir dir, const fs::path& exe,
                                const std::string& file) {
  return sb::layout::find(dir, exe, file, kDefault,
                          [&](const fs::path& p) { return files.count(p) > 0; });
}

TEST(DataDirs, InstalledBinaryFindsItsPrefixsScripts) {
  const std::set<fs::path> files{"/opt/sb/share/stagebench/scripts/reference/geneformer_torch.py"};
  const auto found =
      find_in(files, DataDir::ReferenceScripts, "/opt/sb/bin/stagebench", "geneformer_torch.py");
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, fs::path("/opt/sb/share/stagebench/scripts/reference"));
}

TEST(DataDirs, BuildTreeBinaryFindsTheSourceTreesScripts) {
  const std::set<fs::path> files{"/src/sb/scripts/reference/enformer_torch.py"};
  const auto found = find_in(files, DataDir::ReferenceScripts, "/src/sb/build/harness/stagebench",
                             "enformer_torch.py");
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, fs::path("/src/sb/scripts/reference"));
}

// Installed into a prefix inside a checkout: the prefix's own copy, not the checkout's.
TEST(DataDirs, PrefixComesBeforeTheTreeAboveIt) {
  const std::set<fs::path> files{
      "/src/sb/scripts/reference/deepfm_torch.py",
      "/src/sb/stage/share/stagebench/scripts/reference/deepfm_torch.py"};
  const auto found =
      find_in(files, DataDir::ReferenceScripts, "/src/sb/stage/bin/stagebench", "deepfm_torch.py");
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, fs::path("/src/sb/stage/share/stagebench/scripts/reference"));
}

// The GPU session scripts run from the repository root with whatever binary they were given.
TEST(DataDirs, WorkingDirectoryComesFirst) {
  const std::set<fs::path> files{"scripts/reference/dynunet_torch.py",
                                 "/usr/share/stagebench/scripts/reference/dynunet_torch.py"};
  const auto found =
      find_in(files, DataDir::ReferenceScripts, "/usr/bin/stagebench", "dynunet_torch.py");
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, fs::path("scripts/reference"));
}

TEST(DataDirs, ViewerFindsTheInstalledDocs) {
  const std::set<fs::path> files{"/usr/share/doc/stagebench/docs/viewer.md"};
  const auto found = find_in(files, DataDir::Docs, "/usr/bin/stagebench-viewer", "viewer.md");
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, fs::path("/usr/share/doc/stagebench/docs"));
  const std::set<fs::path> tree{"/src/sb/docs/viewer.md"};
  EXPECT_EQ(find_in(tree, DataDir::Docs, "/src/sb/build/gui/stagebench-viewer", "viewer.md"),
            fs::path("/src/sb/docs"));
}

TEST(DataDirs, NothingFoundIsNullopt) {
  const std::set<fs::path> files{"/usr/share/stagebench/scripts/reference/other.py"};
  EXPECT_FALSE(
      find_in(files, DataDir::ReferenceScripts, "/usr/bin/stagebench", "geneformer_torch.py"));
}

// The candidates an error message lists: normalized, the prefix's after the working directory's.
TEST(DataDirs, CandidatesInOrder) {
  const auto c = sb::layout::candidates(DataDir::ReferenceScripts, "/usr/bin/stagebench", kDefault);
  const std::vector<fs::path> expected{"scripts/reference",
                                       "/usr/share/stagebench/scripts/reference",
                                       "/usr/bin/scripts/reference", "/usr/scripts/reference"};
  EXPECT_EQ(c, expected);
  // Without /proc/self/exe only the working directory is left.
  EXPECT_EQ(sb::layout::candidates(DataDir::ReferenceScripts, fs::path(), kDefault),
            std::vector<fs::path>{"scripts/reference"});
}

// A relocatable layout: relative to bin/, whatever prefix CMake was configured with.
TEST(DataDirs, ConfiguredLayoutIsRelative) {
  const auto layout = sb::layout::installed_layout();
  EXPECT_TRUE(layout.data_from_bin.is_relative()) << layout.data_from_bin;
  EXPECT_TRUE(layout.doc_from_bin.is_relative()) << layout.doc_from_bin;
  EXPECT_FALSE(layout.data_from_bin.empty());
}

}  // namespace
