#pragma once
// The raw pharmagen table: seven text columns, as read from a TSV file or generated, before any
// cleaning. The class names of the three targets are fixed here: the generator writes them, the
// reader accepts only them, the encoder maps them to indices in this order.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sb::deepfm {

inline constexpr int kOutcomes = 6, kDirections = 4, kTypes = 12, kFields = 4;
inline constexpr int kColumns = 7;

// Column order of Table::rows and of the files write_tsv writes. The first kFields are the model's
// inputs, in the order of Encoded::fields.
enum Column : int {
  kDrug = 0,
  kGenalle,
  kGene,
  kAllele,
  kPhenotypeOutcome,
  kEffectDirection,
  kEffectType
};
inline constexpr std::array<std::string_view, kColumns> kColumnNames = {
    "drug", "genalle", "gene", "allele", "phenotype_outcome", "effect_direction", "effect_type"};

// Raw spellings; some hold spaces, which cleaning turns into '_' like every other value. None
// holds ',' or ';' (the outcome list's separators) or starts or ends with a space.
inline constexpr std::array<std::string_view, kOutcomes> kOutcomeNames = {
    "Efficacy", "Toxicity", "Dosage", "Metabolism/PK", "Adverse drug event", "Other"};
inline constexpr std::array<std::string_view, kDirections> kDirectionNames = {
    "increased", "decreased", "not associated", "ambiguous"};
inline constexpr std::array<std::string_view, kTypes> kTypeNames = {
    "efficacy",         "toxicity",      "dosage",        "metabolism",
    "pharmacokinetics", "adverse event", "response rate", "side effect",
    "drug exposure",    "clearance",     "resistance",    "other"};

// Input vocabularies, without the unknown class the encoder adds.
struct Vocab {
  int64_t drug, genalle, gene, allele;
};
struct TableSpec {
  Vocab vocab;
  int64_t rows;
  uint64_t seed;
};

// tiny: 100/50/20/30 values, 2,000 rows; small and full: 839/2309/846/460, 6,600 rows. rows > 0
// overrides the preset's row count. Throws std::invalid_argument for another size or rows < 5.
TableSpec table_spec(const std::string& size, uint64_t seed, int64_t rows = 0);

struct Table {
  std::vector<std::array<std::string, kColumns>> rows;
  std::string source;  // the file's path, or "synthetic(seed N)"
};

// The fewest rows preprocess() accepts: the 20% test split must hold at least one row.
inline constexpr int64_t kMinRows = 5;

}  // namespace sb::deepfm
