#include "models/ops/tensor.h"

#include <stdexcept>

namespace sb {

size_t dtype_size(DType d) {
  switch (d) {
    case DType::f32:
    case DType::i32:
      return 4;
    case DType::f16:
    case DType::bf16:
      return 2;
    case DType::i8:
      return 1;
  }
  return 0;
}

const char* dtype_name(DType d) {
  switch (d) {
    case DType::f32:
      return "f32";
    case DType::f16:
      return "f16";
    case DType::bf16:
      return "bf16";
    case DType::i8:
      return "i8";
    case DType::i32:
      return "i32";
  }
  return "?";
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

Tensor Tensor::reshaped(std::vector<int64_t> shape) const {
  Tensor t(std::move(shape), dtype_, storage_);
  if (t.numel() != numel())
    throw std::invalid_argument("reshape " + shape_string() + " -> " + t.shape_string() +
                                " changes the element count");
  return t;
}

std::string Tensor::shape_string() const {
  std::string s = "[";
  for (size_t i = 0; i < shape_.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(shape_[i]);
  }
  s += ']';
  return s;
}

}  // namespace sb
