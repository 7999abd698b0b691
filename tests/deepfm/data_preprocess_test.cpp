// Cleaning, split, encoding, class weights, and the synthetic task being learnable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

#include "models/deepfm/data/preprocess.h"
#include "models/deepfm/data/synthetic.h"

namespace sb::deepfm {
namespace {

const Table& tiny_table() {
  static const Table t = generate_table(table_spec("tiny", 42));
  return t;
}

void expect_same(const Encoded& a, const Encoded& b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cardinality, b.cardinality);
  EXPECT_EQ(a.fields, b.fields);
  EXPECT_EQ(a.outcome, b.outcome);
  EXPECT_EQ(a.direction, b.direction);
  EXPECT_EQ(a.type, b.type);
}

TEST(Cleaning, RegexAndLiteralGiveTheSameText) {
  Cleaner regex(Cleaning::regex), literal(Cleaning::literal);
  for (const std::string v : {"", "plain", " ", "drug 17 hydrochloride", "  a  b  ", "CYP2D6 *4"})
    EXPECT_EQ(regex.cleaned(v), literal.cleaned(v)) << "'" << v << "'";
  EXPECT_EQ(literal.cleaned("Efficacy; Adverse drug event"), "Efficacy;_Adverse_drug_event");
  EXPECT_FALSE(literal.jit());
}

TEST(Cleaning, RegexAndLiteralGiveIdenticalEncodings) {
  const Table& t = tiny_table();
  EXPECT_EQ(clean_table(t, Cleaning::regex).rows, clean_table(t, Cleaning::literal).rows);
  const Dataset r = preprocess(t, Cleaning::regex, 3), l = preprocess(t, Cleaning::literal, 3);
  expect_same(r.train, l.train);
  expect_same(r.test, l.test);
  EXPECT_EQ(r.type_weights, l.type_weights);
  // The cleaning did something: no vocabulary value holds a space any more.
  for (const auto& enc : r.encoders)
    for (const auto& v : enc.values()) EXPECT_EQ(v.find(' '), std::string::npos) << v;
}

TEST(Split, EightyTwentyPerClassAndDisjoint) {
  const Table& t = tiny_table();
  const Dataset d = preprocess(t, Cleaning::literal, 9);
  const auto n = static_cast<int64_t>(t.rows.size());
  EXPECT_EQ(d.train.rows + d.test.rows, n);
  EXPECT_EQ(d.test.rows, 400);
  std::vector<int64_t> all = d.split.train;
  all.insert(all.end(), d.split.test.begin(), d.split.test.end());
  std::sort(all.begin(), all.end());
  std::vector<int64_t> expected(static_cast<size_t>(n));
  std::iota(expected.begin(), expected.end(), int64_t{0});
  EXPECT_EQ(all, expected);  // disjoint and complete

  std::array<int64_t, kTypes> train{}, test{};
  for (int32_t c : d.train.type) ++train[c];
  for (int32_t c : d.test.type) ++test[c];
  for (int c = 0; c < kTypes; ++c) {
    const double ideal = 0.2 * static_cast<double>(train[c] + test[c]);
    EXPECT_GE(test[c], static_cast<int64_t>(std::floor(ideal))) << "class " << c;
    EXPECT_LE(test[c], static_cast<int64_t>(std::ceil(ideal))) << "class " << c;
  }
}

TEST(Split, SeededAndDifferentSeedsDiffer) {
  const Table& t = tiny_table();
  EXPECT_EQ(preprocess(t, Cleaning::literal, 1).split.test,
            preprocess(t, Cleaning::literal, 1).split.test);
  EXPECT_NE(preprocess(t, Cleaning::literal, 1).split.test,
            preprocess(t, Cleaning::literal, 2).split.test);
}

TEST(Encode, UnknownClassForValuesUnseenInTraining) {
  // 300 rows: a 240-row training split misses some of tiny's 100 drugs and 50 genalles.
  const Dataset d = preprocess(generate_table(table_spec("tiny", 42, 300)), Cleaning::regex, 4);
  std::array<int64_t, kFields> unknown_in_test{};
  for (int64_t r = 0; r < d.train.rows; ++r)
    for (int f = 0; f < kFields; ++f) {
      const int32_t v = d.train.fields[static_cast<size_t>(r * kFields + f)];
      EXPECT_GE(v, 0);
      EXPECT_LT(v, d.train.cardinality[f] - 1);  // training never meets the unknown class
    }
  for (int64_t r = 0; r < d.test.rows; ++r)
    for (int f = 0; f < kFields; ++f) {
      const int32_t v = d.test.fields[static_cast<size_t>(r * kFields + f)];
      ASSERT_GE(v, 0);
      ASSERT_LT(v, d.test.cardinality[f]);
      if (v == d.test.cardinality[f] - 1) ++unknown_in_test[f];
    }
  for (int f = 0; f < kFields; ++f)
    EXPECT_EQ(d.train.cardinality[f], static_cast<int64_t>(d.encoders[f].values().size()) + 1);
  EXPECT_GT(unknown_in_test[kGenalle] + unknown_in_test[kDrug], 0);

  // And directly: a value never seen maps to the unknown class.
  const FieldEncoder enc({"b", "a", "b"});
  EXPECT_EQ(enc("a"), 0);
  EXPECT_EQ(enc("b"), 1);
  EXPECT_EQ(enc("zzz"), 2);
  EXPECT_EQ(enc.cardinality(), 3);
}

TEST(Encode, TargetsFromTheCleanedText) {
  Table t;
  t.source = "hand";
  for (int i = 0; i < 5; ++i)
    t.rows.push_back({"drug " + std::to_string(i), "CYP2D6 *4", "gene A1", "rs1000 A",
                      "Adverse drug event ,Other;Efficacy", "not associated", "side effect"});
  const Dataset d = preprocess(t, Cleaning::regex, 0);
  const Encoded& e = d.train.rows ? d.train : d.test;
  EXPECT_EQ(e.direction[0], 2);
  EXPECT_EQ(e.type[0], 7);
  const std::vector<float> hot(e.outcome.begin(), e.outcome.begin() + kOutcomes);
  EXPECT_EQ(hot, (std::vector<float>{1, 0, 0, 0, 1, 1}));
}

TEST(Weights, InverseLogCountsWithMeanOne) {
  const Dataset d = preprocess(tiny_table(), Cleaning::literal, 5);
  ASSERT_EQ(d.type_weights.size(), static_cast<size_t>(kTypes));
  const double mean = std::accumulate(d.type_weights.begin(), d.type_weights.end(), 0.0) / kTypes;
  EXPECT_NEAR(mean, 1.0, 1e-6);
  std::array<int64_t, kTypes> count{};
  for (int32_t c : d.train.type) ++count[c];
  // Rarer classes weigh more.
  for (int a = 0; a < kTypes; ++a)
    for (int b = 0; b < kTypes; ++b)
      if (count[a] < count[b]) {
        EXPECT_GT(d.type_weights[a], d.type_weights[b]);
      }
  const auto w = class_weights(std::vector<int32_t>{0, 0, 1}, 3);
  const double raw0 = 1 / std::log(4.0), raw1 = 1 / std::log(3.0), raw2 = 1 / std::log(2.0);
  const double scale = 3 / (raw0 + raw1 + raw2);
  EXPECT_NEAR(w[0], raw0 * scale, 1e-6);
  EXPECT_NEAR(w[2], raw2 * scale, 1e-6);
}

// The synthetic task is learnable: the majority effect_type per (drug, gene) on the training
// split, falling back to the drug's and then the overall majority, beats the overall majority
// class (and chance, 1/12) on the test split by far.
TEST(Learnability, MajorityPerDrugAndGeneBeatsChance) {
  const Dataset d = preprocess(tiny_table(), Cleaning::literal, 6);
  std::map<std::pair<int32_t, int32_t>, std::array<int, kTypes>> by_pair;
  std::map<int32_t, std::array<int, kTypes>> by_drug;
  std::array<int, kTypes> overall{};
  for (int64_t r = 0; r < d.train.rows; ++r) {
    const int32_t drug = d.train.fields[static_cast<size_t>(r * kFields + kDrug)],
                  gene = d.train.fields[static_cast<size_t>(r * kFields + kGene)],
                  type = d.train.type[static_cast<size_t>(r)];
    ++by_pair[{drug, gene}][type];
    ++by_drug[drug][type];
    ++overall[type];
  }
  const auto arg = [](const std::array<int, kTypes>& c) {
    return static_cast<int32_t>(std::max_element(c.begin(), c.end()) - c.begin());
  };
  const int32_t majority = arg(overall);
  int64_t right = 0, right_majority = 0;
  for (int64_t r = 0; r < d.test.rows; ++r) {
    const int32_t drug = d.test.fields[static_cast<size_t>(r * kFields + kDrug)],
                  gene = d.test.fields[static_cast<size_t>(r * kFields + kGene)],
                  type = d.test.type[static_cast<size_t>(r)];
    int32_t guess = majority;
    if (auto p = by_pair.find({drug, gene}); p != by_pair.end())
      guess = arg(p->second);
    else if (auto q = by_drug.find(drug); q != by_drug.end())
      guess = arg(q->second);
    right += guess == type;
    right_majority += majority == type;
  }
  const double acc = static_cast<double>(right) / static_cast<double>(d.test.rows),
               base = static_cast<double>(right_majority) / static_cast<double>(d.test.rows);
  std::printf("effect_type test accuracy: lookup %.3f, majority class %.3f, chance %.3f\n", acc,
              base, 1.0 / kTypes);
  EXPECT_GT(acc, base + 0.15);
  EXPECT_GT(acc, 2.0 / kTypes);
}

}  // namespace
}  // namespace sb::deepfm
