// The synthetic table and its TSV form.
#include <gtest/gtest.h>

#include <set>

#include "models/deepfm/data/labels.h"
#include "models/deepfm/data/synthetic.h"
#include "models/deepfm/data/tsv.h"
#include "tests/common/temp_dir.h"

namespace sb::deepfm {
namespace {

TEST(Table, PresetsAndUnknownSize) {
  const TableSpec tiny = table_spec("tiny", 7);
  EXPECT_EQ(tiny.vocab.drug, 100);
  EXPECT_EQ(tiny.vocab.genalle, 50);
  EXPECT_EQ(tiny.vocab.gene, 20);
  EXPECT_EQ(tiny.vocab.allele, 30);
  EXPECT_EQ(tiny.rows, 2000);
  EXPECT_EQ(tiny.seed, 7u);
  for (const char* size : {"small", "full"}) {
    const TableSpec s = table_spec(size, 1);
    EXPECT_EQ(s.vocab.drug, 839);
    EXPECT_EQ(s.vocab.genalle, 2309);
    EXPECT_EQ(s.vocab.gene, 846);
    EXPECT_EQ(s.vocab.allele, 460);
    EXPECT_EQ(s.rows, 6600);
  }
  EXPECT_EQ(table_spec("tiny", 1, 300).rows, 300);
  EXPECT_THROW(table_spec("huge", 1), std::invalid_argument);
  EXPECT_THROW(table_spec("tiny", 1, 3), std::invalid_argument);
}

TEST(Table, GenerationIsDeterministicBySeed) {
  const TableSpec spec = table_spec("tiny", 11, 500);
  const Table a = generate_table(spec), b = generate_table(spec);
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.source, "synthetic(seed 11)");
  TableSpec other = spec;
  other.seed = 12;
  EXPECT_NE(generate_table(other).rows, a.rows);
}

TEST(Table, ValuesHoldSpacesAndKnownLabels) {
  const Table t = generate_table(table_spec("tiny", 3, 1000));
  ASSERT_EQ(t.rows.size(), 1000u);
  std::set<std::string> drugs;
  bool comma = false, semicolon = false, spaced_separator = false;
  std::array<float, kOutcomes> hot;
  for (const auto& row : t.rows) {
    for (int c = 0; c < kFields; ++c) EXPECT_NE(row[c].find(' '), std::string::npos) << row[c];
    drugs.insert(row[kDrug]);
    EXPECT_TRUE(direction_index(row[kEffectDirection])) << row[kEffectDirection];
    EXPECT_TRUE(type_index(row[kEffectType])) << row[kEffectType];
    EXPECT_FALSE(parse_outcomes(row[kPhenotypeOutcome], hot)) << row[kPhenotypeOutcome];
    const std::string& o = row[kPhenotypeOutcome];
    comma = comma || o.find(',') != std::string::npos;
    semicolon = semicolon || o.find(';') != std::string::npos;
    spaced_separator =
        spaced_separator || o.find(", ") != std::string::npos || o.find("; ") != std::string::npos;
  }
  EXPECT_TRUE(comma && semicolon && spaced_separator);
  EXPECT_GT(drugs.size(), 50u);  // the skew leaves many values, not a handful
  EXPECT_LE(drugs.size(), 100u);
}

TEST(Table, WriteReadRoundTrip) {
  testing::TempDir dir("sb_deepfm_");
  const Table t = generate_table(table_spec("tiny", 5, 200));
  const auto path = dir.file("table.tsv");
  write_tsv(t, path);
  const Table back = read_tsv(path);
  EXPECT_EQ(back.rows, t.rows);
  EXPECT_EQ(back.source, path.string());
}

TEST(Table, ReaderTakesColumnsInAnyOrderAndCrLf) {
  testing::TempDir dir("sb_deepfm_");
  std::string text =
      "effect_type\tdrug\tgenalle\tgene\tallele\tphenotype_outcome\teffect_direction\r\n";
  for (int i = 0; i < 5; ++i)
    text += "side effect\tdrug " + std::to_string(i) +
            "\tCYP2D6 *4\tgene A1\trs1000 A\tEfficacy; Other\tnot associated\r\n";
  text += "\n\n";
  const Table t = read_tsv(dir.write("t.tsv", text));
  ASSERT_EQ(t.rows.size(), 5u);
  EXPECT_EQ(t.rows[2][kDrug], "drug 2");
  EXPECT_EQ(t.rows[2][kEffectType], "side effect");
  EXPECT_EQ(t.rows[2][kEffectDirection], "not associated");
}

}  // namespace
}  // namespace sb::deepfm
