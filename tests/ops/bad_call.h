#pragma once
// One bad call of an op front (op_fronts_test.cpp): what it must say, on every backend. The
// 3-D volume ops' bad calls live in bad_calls_volume.cpp; the test runs them all.
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "tests/ops/reference.h"

namespace sb::testing {

struct BadCall {
  std::string name;
  Op op;
  std::string says;  // a part of the message
  std::function<void(Backend&)> call;
};

inline void PrintTo(const BadCall& bad, std::ostream* os) {
  *os << bad.name;
}

inline Tensor zeros(Backend& be, std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return be.upload(Vec(static_cast<size_t>(n), 0.f), std::move(shape));
}

inline Tensor ids(Backend& be, std::vector<int32_t> values, std::vector<int64_t> shape) {
  return be.upload_ids(values, std::move(shape));
}

// The 3-D volume ops' bad calls (instance norm, axis-1 columns, Dice, convolutions).
void add_volume_bad_calls(std::vector<BadCall>& c);

}  // namespace sb::testing
