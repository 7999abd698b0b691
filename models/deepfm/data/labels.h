#pragma once
// The three targets' text to class indices. Each accepts the raw spelling and the cleaned one
// (spaces turned into '_'), so that the reader validates raw files and the encoder reads cleaned
// tables with the same rule.
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "models/deepfm/data/table.h"

namespace sb::deepfm {

std::optional<int> direction_index(std::string_view value);
std::optional<int> type_index(std::string_view value);

// Splits an outcome list on ',' and ';', trims ' ' and '_' around each label (cleaning turns
// "a, b" into "a,_b") and sets the labels' bits. Returns the problem (an empty label, a label
// outside kOutcomeNames), or nothing.
std::optional<std::string> parse_outcomes(std::string_view value,
                                          std::array<float, kOutcomes>& multi_hot);

}  // namespace sb::deepfm
