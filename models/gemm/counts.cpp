#include "models/gemm/counts.h"

namespace sb::gemm {

double element_bytes(Precision p) {
  switch (p) {
    case Precision::bf16:
    case Precision::f16:
      return 2;
    case Precision::int8:
      return 1;
    default:
      return 4;  // fp32, and tf32, whose operands are fp32 in memory
  }
}

WorkCounts gemm_counts(const Config& c, Precision p) {
  const double m = static_cast<double>(c.m), n = static_cast<double>(c.n);
  const double k = static_cast<double>(c.k), e = element_bytes(p);
  WorkCounts w;
  w.flops = 2 * m * n * k;
  w.bytes = e * (m * k + n * k) + 4 * m * n;
  w.items = 1;
  w.item_name = "gemms";
  w.precision = precision_name(p);
  return w;
}

}  // namespace sb::gemm
