#pragma once
// Label encoding of the inputs and targets, on a cleaned table.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/deepfm/data/table.h"

namespace sb::deepfm {

struct Encoded {  // one row per table row
  int64_t rows = 0;
  std::array<int64_t, kFields> cardinality{};  // per input field, including the unknown class
  std::vector<int32_t> fields;                 // rows x kFields, each in [0, cardinality[f])
  std::vector<float> outcome;                  // rows x kOutcomes, multi-hot
  std::vector<int32_t> direction, type;        // rows, in [0, kDirections) and [0, kTypes)
};

// One input column's vocabulary, as sklearn's LabelEncoder builds it: the distinct training
// values in sorted order get 0..n-1, and n is the unknown class for any other value.
class FieldEncoder {
 public:
  FieldEncoder() = default;
  explicit FieldEncoder(std::vector<std::string> values);  // any order, repeats allowed
  int32_t operator()(const std::string& value) const {
    const auto it = index_.find(value);
    return it == index_.end() ? unknown() : it->second;
  }
  int32_t unknown() const { return static_cast<int32_t>(values_.size()); }
  int64_t cardinality() const { return static_cast<int64_t>(values_.size()) + 1; }
  const std::vector<std::string>& values() const { return values_; }

 private:
  std::vector<std::string> values_;
  std::unordered_map<std::string, int32_t> index_;
};

// Builds the encoders from the given rows of a (cleaned) table.
std::array<FieldEncoder, kFields> fit_encoders(const Table& table, std::span<const int64_t> rows);

// Encodes the given rows. Throws std::invalid_argument naming table.source and the row (0-based
// index in table.rows) for a target label that is not one of the class names.
Encoded encode_rows(const Table& table, std::span<const int64_t> rows,
                    const std::array<FieldEncoder, kFields>& encoders);

}  // namespace sb::deepfm
