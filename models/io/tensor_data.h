#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sb {

// A tensor as read from or written to a file: values always fp32, row-major (C order).
// `dtype` is the stored element type in safetensors spelling ("F32", "F16", "BF16", "I64", ...).
struct TensorData {
  std::string dtype = "F32";
  std::vector<int64_t> shape;
  std::vector<float> values;
};

// Product of the dims (1 for a scalar). Throws std::invalid_argument on a negative dim or when
// the product overflows int64.
int64_t element_count(const std::vector<int64_t>& shape);

// More dimensions than any real array has (numpy allows 64); file readers refuse a shape longer
// than this instead of carrying a hostile header's millions of dimensions around.
inline constexpr size_t kMaxDimensions = 64;

// "[2,3,4]", the form every shape error message uses. Long shapes are elided, with their count:
// "[1,1,1,1,...,1,1,1,1] (4000000 dimensions)".
std::string shape_to_string(const std::vector<int64_t>& shape);

// "tensor 'NAME' holds NaN at element I" for the first NaN or Inf (in order, tensor by tensor),
// "" when every value is finite: what `infer` says of an output that is no result.
std::string first_non_finite(const std::vector<std::pair<std::string, TensorData>>& tensors);

// "NaN", "inf" or "-inf", as the messages above name a value that is not finite.
const char* non_finite_name(float value);

}  // namespace sb
