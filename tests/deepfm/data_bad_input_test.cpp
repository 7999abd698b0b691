// Every malformed table gives std::invalid_argument naming the file, the line and the problem.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <initializer_list>

#include "models/deepfm/data/preprocess.h"
#include "models/deepfm/data/tsv.h"
#include "tests/common/temp_dir.h"

namespace sb::deepfm {
namespace {

const std::string kHeader =
    "drug\tgenalle\tgene\tallele\tphenotype_outcome\teffect_direction\teffect_type\n";
const std::string kRow =
    "drug 1 sodium\tCYP2D3 *2\tgene B0\trs1007 C\tEfficacy, Toxicity\tincreased\tdosage\n";

std::string rows(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += kRow;
  return s;
}

// read_tsv must throw std::invalid_argument, and nothing else, with every part in its message.
void expect_bad(const std::filesystem::path& path, std::initializer_list<std::string> parts) {
  try {
    read_tsv(path);
    ADD_FAILURE() << path << ": no error";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path.string()), std::string::npos) << what;
    for (const auto& p : parts) EXPECT_NE(what.find(p), std::string::npos) << what << " / " << p;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not std::invalid_argument: " << e.what();
  }
}

class BadInput : public ::testing::Test {
 protected:
  testing::TempDir dir{"sb_deepfm_bad_"};
  std::filesystem::path write(const std::string& text) { return dir.write("table.tsv", text); }
};

TEST_F(BadInput, MissingFile) {
  expect_bad(dir.file("absent.tsv"), {"no such file"});
}

TEST_F(BadInput, DirectoryIsNotARegularFile) {
  std::filesystem::create_directory(dir.file("a_dir"));
  expect_bad(dir.file("a_dir"), {"is a directory, not a regular file"});
}

TEST_F(BadInput, FifoIsNotARegularFile) {
  const auto fifo = dir.file("pipe.tsv");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_bad(fifo, {"not a regular file"});  // and returns at once: it never opens the FIFO
}

TEST_F(BadInput, UnreadableFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads files whatever their mode";
  const auto path = write(kHeader + rows(5));
  std::filesystem::permissions(path, std::filesystem::perms::none);
  expect_bad(path, {"cannot be opened"});
}

TEST_F(BadInput, EmptyFile) {
  expect_bad(write(""), {"line 1", "empty file"});
  expect_bad(write("\n\n"), {"line 1", "empty file"});
}

TEST_F(BadInput, HeaderMissingAColumn) {
  expect_bad(
      write("drug\tgenalle\tallele\tphenotype_outcome\teffect_direction\teffect_type\n" + rows(5)),
      {"line 1", "header lacks column 'gene'"});
  expect_bad(write("drug\tgenalle\tgene\tallele\tphenotype_outcome\teffect_direction\tkind\n"),
             {"line 1", "unknown column 'kind'"});
}

TEST_F(BadInput, RowWithWrongFieldCount) {
  expect_bad(write(kHeader + kRow + "drug 2\tCYP2D3 *2\tgene B0\trs1007 C\tEfficacy\tincreased\n"),
             {"line 3", "row has 6 fields, expected 7"});
  expect_bad(write(kHeader + kRow + kRow + "\n" + rows(3)), {"line 4", "row has 1 field,"});
  expect_bad(write(kHeader + kRow.substr(0, kRow.size() - 1) + "\textra\n"),
             {"line 2", "row has 8 fields"});
}

TEST_F(BadInput, EmptyValue) {
  expect_bad(write(kHeader + kRow + "drug 1\tCYP2D3 *2\tgene B0\t\tEfficacy\tincreased\tdosage\n"),
             {"line 3", "empty value in column 'allele'"});
  expect_bad(write(kHeader + "drug 1\tCYP2D3 *2\t  \trs1 A\tEfficacy\tincreased\tdosage\n"),
             {"line 2", "empty value in column 'gene'"});
}

TEST_F(BadInput, TargetLabelOutsideTheClasses) {
  expect_bad(write(kHeader + kRow + kRow +
                   "drug 1\tCYP2D3 *2\tgene B0\trs1 A\tEfficacy\tsideways\tdosage\n" + rows(3)),
             {"line 4", "unknown effect_direction 'sideways'"});
  expect_bad(
      write(kHeader + "drug 1\tCYP2D3 *2\tgene B0\trs1 A\tEfficacy\tincreased\tmagic\n" + rows(5)),
      {"line 2", "unknown effect_type 'magic'"});
  expect_bad(write(kHeader + rows(5) +
                   "drug 1\tCYP2D3 *2\tgene B0\trs1 A\tEfficacy; Luck\tincreased\tdosage\n"),
             {"line 7", "unknown phenotype_outcome label 'Luck'"});
  expect_bad(write(kHeader +
                   "drug 1\tCYP2D3 *2\tgene B0\trs1 A\tEfficacy;;Other\tincreased\t"
                   "dosage\n" +
                   rows(5)),
             {"line 2", "empty label"});
}

TEST_F(BadInput, TooSmallToSplit) {
  expect_bad(write(kHeader + rows(3)),
             {"line 4", "too small to split", "3 data rows", "at least 5"});
  expect_bad(write(kHeader), {"line 1", "too small to split", "0 data rows"});
  EXPECT_NO_THROW(read_tsv(write(kHeader + rows(5))));

  Table t = read_tsv(write(kHeader + rows(5)));
  t.rows.pop_back();
  try {
    preprocess(t, Cleaning::literal, 0);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("too small to split"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sb::deepfm
