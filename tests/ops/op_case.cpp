#include "tests/ops/op_case.h"

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace sb::testing {

double tolerance(Precision p) {
  switch (p) {
    case Precision::f32:
      return 2e-5;  // elementwise, relative to 1 + |want|
    case Precision::tf32:
      return 2e-3;  // relative L2 from here on
    case Precision::bf16:
    case Precision::f16:
      return 1e-2;
    case Precision::int8:
      return 5e-2;
  }
  return 0;
}

std::function<std::string(Backend&)> needs_precision(Precision p) {
  return [p](Backend& be) { return be.unsupported_reason(p); };
}

std::function<std::string(Backend&)> needs_cpu_bf16_convolutions() {
  return [](Backend& be) -> std::string {
    if (be.name() != "cpu") return "cases of the cpu backend's bf16 convolutions";
    return be.unsupported_reason(Precision::bf16);
  };
}

bool small_shapes() {
  static const bool small = [] {
    const char* env = std::getenv("STAGEBENCH_OP_SHAPES");
    if (env == nullptr || *env == '\0' || std::string(env) == "full") return false;
    if (std::string(env) == "small") return true;
    throw std::invalid_argument(std::string("STAGEBENCH_OP_SHAPES=") + env + ": full or small");
  }();
  return small;
}

std::string compare(const Check& c) {
  std::ostringstream out;
  if (c.got.size() != c.want.size()) {
    out << c.what << ": " << c.got.size() << " values, want " << c.want.size();
    return out.str();
  }
  const double tol = c.tol > 0 ? c.tol : tolerance(c.precision);
  if (c.precision == Precision::f32 && !c.l2) {
    size_t worst = 0;
    double worst_excess = -1;
    for (size_t i = 0; i < c.got.size(); ++i) {
      const double excess = std::fabs(c.got[i] - c.want[i]) - tol * (1 + std::fabs(c.want[i]));
      if (std::isnan(excess) || excess > worst_excess) {
        worst_excess = std::isnan(excess) ? INFINITY : excess;
        worst = i;
      }
    }
    if (worst_excess <= 0) return "";
    out << c.what << ": element " << worst << " is " << c.got[worst] << ", want " << c.want[worst]
        << " (tolerance " << tol << " x (1 + |want|))";
    return out.str();
  }
  double num = 0, den = 0;
  for (size_t i = 0; i < c.got.size(); ++i) {
    num += (c.got[i] - c.want[i]) * (c.got[i] - c.want[i]);
    den += c.want[i] * c.want[i];
  }
  // A zero reference matched exactly is no error (a relu's gradient where its inputs are < 0).
  const double rel_l2 = den > 0 ? std::sqrt(num / den) : num > 0 ? INFINITY : 0.0;
  if (rel_l2 <= tol) return "";
  out << c.what << ": relative L2 error " << rel_l2 << " exceeds " << tol << " ("
      << (c.l2 ? "gradient check" : precision_name(c.precision)) << ")";
  return out.str();
}

const std::vector<OpCase>& op_cases() {
  static const std::vector<OpCase> cases = [] {
    std::vector<OpCase> all;
    add_memory_and_gemm_cases(all);
    add_data_movement_and_elementwise_cases(all);
    add_norm_and_reduction_cases(all);
    add_attention_cases(all);
    add_training_cases(all);
    add_volume_cases(all);
    add_conv_transpose3d_cases(all);
    add_conv3d_cases(all);
    add_half_activation_cases(all);
    return all;
  }();
  return cases;
}

}  // namespace sb::testing
