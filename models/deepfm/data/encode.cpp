#include "models/deepfm/data/encode.h"

#include <algorithm>
#include <stdexcept>

#include "models/deepfm/data/labels.h"

namespace sb::deepfm {

FieldEncoder::FieldEncoder(std::vector<std::string> values) : values_(std::move(values)) {
  std::sort(values_.begin(), values_.end());
  values_.erase(std::unique(values_.begin(), values_.end()), values_.end());
  index_.reserve(values_.size());
  for (size_t i = 0; i < values_.size(); ++i) index_.emplace(values_[i], static_cast<int32_t>(i));
}

std::array<FieldEncoder, kFields> fit_encoders(const Table& table, std::span<const int64_t> rows) {
  std::array<FieldEncoder, kFields> enc;
  for (int f = 0; f < kFields; ++f) {
    std::vector<std::string> values;
    values.reserve(rows.size());
    for (const int64_t r : rows) values.push_back(table.rows[static_cast<size_t>(r)][f]);
    enc[f] = FieldEncoder(std::move(values));
  }
  return enc;
}

Encoded encode_rows(const Table& table, std::span<const int64_t> rows,
                    const std::array<FieldEncoder, kFields>& encoders) {
  Encoded e;
  e.rows = static_cast<int64_t>(rows.size());
  for (int f = 0; f < kFields; ++f) e.cardinality[f] = encoders[f].cardinality();
  e.fields.resize(rows.size() * kFields);
  e.outcome.resize(rows.size() * kOutcomes);
  e.direction.resize(rows.size());
  e.type.resize(rows.size());
  std::array<float, kOutcomes> hot;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& row = table.rows[static_cast<size_t>(rows[i])];
    const auto bad = [&](const std::string& problem) {
      return std::invalid_argument(table.source + ": row " + std::to_string(rows[i]) + ": " +
                                   problem);
    };
    for (int f = 0; f < kFields; ++f) e.fields[i * kFields + f] = encoders[f](row[f]);
    const auto dir = direction_index(row[kEffectDirection]);
    if (!dir) throw bad("unknown effect_direction '" + row[kEffectDirection] + "'");
    const auto type = type_index(row[kEffectType]);
    if (!type) throw bad("unknown effect_type '" + row[kEffectType] + "'");
    if (auto problem = parse_outcomes(row[kPhenotypeOutcome], hot)) throw bad(*problem);
    e.direction[i] = *dir;
    e.type[i] = *type;
    std::copy(hot.begin(), hot.end(), e.outcome.begin() + static_cast<ptrdiff_t>(i * kOutcomes));
  }
  return e;
}

}  // namespace sb::deepfm
