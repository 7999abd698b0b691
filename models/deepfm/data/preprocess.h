#pragma once
// The whole preprocessing, as the original Python does it: clean, split 80/20 stratified on
// effect_type, encode with the training split's vocabularies, weigh effect_type's classes.
#include <cstdint>
#include <vector>

#include "models/deepfm/data/cleaning.h"
#include "models/deepfm/data/encode.h"
#include "models/deepfm/data/split.h"

namespace sb::deepfm {

inline constexpr double kTestFraction = 0.2;

struct Dataset {
  Encoded train, test;                         // rows in table order within each split
  std::vector<float> type_weights;             // kTypes, 1/ln(train count + 2), mean 1
  std::array<FieldEncoder, kFields> encoders;  // the training vocabularies
  Split split;                                 // which table rows went where
};

// Throws std::invalid_argument (naming table.source) for fewer than kMinRows rows or a target
// label outside the class names.
Dataset preprocess(const Table& table, Cleaning how, uint64_t split_seed);

// preprocess() without the cleaning, on a table already cleaned (so that stages can time the two
// phases apart).
Dataset split_and_encode(const Table& cleaned, uint64_t split_seed);

}  // namespace sb::deepfm
