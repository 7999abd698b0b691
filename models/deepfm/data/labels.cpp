#include "models/deepfm/data/labels.h"

#include <algorithm>

namespace sb::deepfm {
namespace {

bool same_label(std::string_view value, std::string_view name) {
  if (value.size() != name.size()) return false;
  for (size_t i = 0; i < value.size(); ++i) {
    const char a = value[i] == ' ' ? '_' : value[i], b = name[i] == ' ' ? '_' : name[i];
    if (a != b) return false;
  }
  return true;
}

template <size_t N>
std::optional<int> find(std::string_view value, const std::array<std::string_view, N>& names) {
  for (size_t i = 0; i < N; ++i)
    if (same_label(value, names[i])) return static_cast<int>(i);
  return std::nullopt;
}

}  // namespace

std::optional<int> direction_index(std::string_view value) {
  return find(value, kDirectionNames);
}
std::optional<int> type_index(std::string_view value) {
  return find(value, kTypeNames);
}

std::optional<std::string> parse_outcomes(std::string_view value,
                                          std::array<float, kOutcomes>& multi_hot) {
  multi_hot.fill(0.0f);
  size_t begin = 0;
  while (true) {
    const size_t end = std::min(value.find_first_of(",;", begin), value.size());
    std::string_view label = value.substr(begin, end - begin);
    const size_t first = label.find_first_not_of(" _");
    label = first == std::string_view::npos
                ? std::string_view{}
                : label.substr(first, label.find_last_not_of(" _") - first + 1);
    if (label.empty()) return "an empty label in the outcome list '" + std::string(value) + "'";
    const auto i = find(label, kOutcomeNames);
    if (!i) return "unknown phenotype_outcome label '" + std::string(label) + "'";
    multi_hot[*i] = 1.0f;
    if (end == value.size()) return std::nullopt;
    begin = end + 1;
  }
}

}  // namespace sb::deepfm
