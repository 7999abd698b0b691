#pragma once
// One table of op cases for every backend (in the manner of ggml's test-backend-ops): a case
// names the op it covers, builds seeded random inputs at small shapes, runs the op through a
// Backend& and returns what it got next to a double-precision reference. The table is
// instantiated over every backend available (op_table_test.cpp).
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "models/ops/backend.h"
#include "tests/ops/reference.h"

namespace sb::testing {

// One output next to its reference, compared at the tolerance of `precision`: elementwise
// |got - want| <= tol (1 + |want|) for fp32, the relative L2 error for reduced precisions.
struct Check {
  std::string what;
  Vec got;
  DVec want;
  Precision precision = Precision::f32;
  double tol = 0;   // 0: the precision's own (tolerance())
  bool l2 = false;  // compare by the relative L2 error even at f32 (gradient checks)
};

double tolerance(Precision p);

struct OpCase {
  Op op;             // the op this case covers
  std::string name;  // unique within the op
  // Empty when the case can run on this backend, else why not (a precision it lacks).
  std::function<std::string(Backend&)> needs;
  std::function<std::vector<Check>(Backend&)> run;
};

// Every case, in op order; the cases_*.cpp files each add one group.
const std::vector<OpCase>& op_cases();
void add_memory_and_gemm_cases(std::vector<OpCase>& cases);
void add_data_movement_and_elementwise_cases(std::vector<OpCase>& cases);
void add_norm_and_reduction_cases(std::vector<OpCase>& cases);
void add_attention_cases(std::vector<OpCase>& cases);
void add_training_cases(std::vector<OpCase>& cases);
std::vector<OpCase> loss_cases();   // cases_losses_adamw.cpp, added by add_training_cases
std::vector<OpCase> adamw_cases();  // likewise
void add_volume_cases(std::vector<OpCase>& cases);
void add_conv_transpose3d_cases(std::vector<OpCase>& cases);
void add_conv3d_cases(std::vector<OpCase>& cases);
void add_half_activation_cases(std::vector<OpCase>& cases);

// A case that needs GEMMs at precision p.
std::function<std::string(Backend&)> needs_precision(Precision p);
// The cpu backend's bf16 convolutions (oneDNN, on a CPU with avx512_bf16): the others skip.
std::function<std::string(Backend&)> needs_cpu_bf16_convolutions();

// A case's checks from a braced list (a lambda cannot return one directly).
inline std::vector<Check> checks(std::initializer_list<Check> list) {
  return std::vector<Check>(list);
}

// STAGEBENCH_OP_SHAPES=small: the cases that would cost minutes under a simulator (Oclgrind runs
// a kernel about a million times slower than a GPU; scripts/oclgrind-ci.sh) take smaller shapes,
// still off the kernels' tile and work-group multiples. Unset: the shapes as written.
bool small_shapes();
// `full`, or `small` under small_shapes().
inline int64_t shape(int64_t full, int64_t small) {
  return small_shapes() ? small : full;
}

// Empty when `check` holds, else what failed (the worst element, or the L2 error).
std::string compare(const Check& check);

inline Tensor up(Backend& be, const Vec& v, std::vector<int64_t> shape) {
  return be.upload(v, std::move(shape));
}

inline DVec widen(const Vec& v) {
  return DVec(v.begin(), v.end());
}

}  // namespace sb::testing
