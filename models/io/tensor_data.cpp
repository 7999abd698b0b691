#include "models/io/tensor_data.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace sb {

int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (const int64_t dim : shape) {
    if (dim < 0)
      throw std::invalid_argument("shape " + shape_to_string(shape) + " has a negative dimension");
    if (dim != 0 && count > std::numeric_limits<int64_t>::max() / dim) {
      throw std::invalid_argument("shape " + shape_to_string(shape) + " has too many elements");
    }
    count *= dim;
  }
  return count;
}

std::string shape_to_string(const std::vector<int64_t>& shape) {
  // A hostile header can declare millions of dimensions; every message quoting the shape stays
  // short: the first and last few, and how many there are.
  constexpr size_t kShownEach = 4;
  const bool elided = shape.size() > 2 * kShownEach + 1;
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (elided && i == kShownEach) {
      text += ",...";
      i = shape.size() - kShownEach - 1;
      continue;
    }
    if (i > 0) text += ",";
    text += std::to_string(shape[i]);
  }
  text += "]";
  if (elided) text += " (" + std::to_string(shape.size()) + " dimensions)";
  return text;
}

std::string first_non_finite(const std::vector<std::pair<std::string, TensorData>>& tensors) {
  for (const auto& [name, tensor] : tensors)
    for (size_t i = 0; i < tensor.values.size(); ++i)
      if (!std::isfinite(tensor.values[i]))
        return "tensor '" + name + "' holds " + non_finite_name(tensor.values[i]) + " at element " +
               std::to_string(i);
  return {};
}

const char* non_finite_name(float value) {
  return std::isnan(value) ? "NaN" : value > 0 ? "inf" : "-inf";
}

}  // namespace sb
