#include "models/io/tensor_data.h"

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
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ",";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

}  // namespace sb
