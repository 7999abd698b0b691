#include "models/deepfm/data/preprocess.h"

#include <stdexcept>
#include <string>

#include "models/deepfm/data/labels.h"

namespace sb::deepfm {

Dataset split_and_encode(const Table& cleaned, uint64_t split_seed) {
  const auto n = static_cast<int64_t>(cleaned.rows.size());
  if (n < kMinRows)
    throw std::invalid_argument(cleaned.source +
                                ": table too small to split: " + std::to_string(n) +
                                " rows, need at least " + std::to_string(kMinRows));
  std::vector<int32_t> types(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) {
    const auto& v = cleaned.rows[static_cast<size_t>(r)][kEffectType];
    const auto t = type_index(v);
    if (!t)
      throw std::invalid_argument(cleaned.source + ": row " + std::to_string(r) +
                                  ": unknown effect_type '" + v + "'");
    types[static_cast<size_t>(r)] = *t;
  }
  Dataset d;
  d.split = stratified_split(types, kTypes, kTestFraction, split_seed);
  d.encoders = fit_encoders(cleaned, d.split.train);
  d.train = encode_rows(cleaned, d.split.train, d.encoders);
  d.test = encode_rows(cleaned, d.split.test, d.encoders);
  d.type_weights = class_weights(d.train.type, kTypes);
  return d;
}

Dataset preprocess(const Table& table, Cleaning how, uint64_t split_seed) {
  return split_and_encode(clean_table(table, how), split_seed);
}

}  // namespace sb::deepfm
