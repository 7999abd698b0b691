#include "models/deepfm/counts.h"

#include "models/deepfm/params.h"

namespace sb::deepfm {

StepCounts step_counts(const Config& c, const std::array<int64_t, 4>& cardinality) {
  const double b = static_cast<double>(c.batch), e = static_cast<double>(c.embed),
               h = static_cast<double>(c.hidden), n = 4 * b, l = static_cast<double>(c.layers);
  double gemm = 0;                            // multiply-adds
  gemm += n * e * 3 * e;                      // QKV
  gemm += 2 * b * 4 * 4 * e;                  // scores and P V over all heads
  gemm += n * e * e;                          // out projection
  gemm += 2 * n * e * h;                      // feed-forward
  gemm += b * (4 * e * h + (l - 1) * h * h);  // deep branch
  gemm += b * 4 * 4 * e;                      // FM pairs (as the Gram matrix)
  gemm += b * (h + kPairs) * (6 + 4 + 12);    // heads
  StepCounts s;
  s.forward_flops = 2 * gemm;
  s.flops = 3 * s.forward_flops;
  double params = 0;
  for (const auto& spec : param_specs(c, cardinality)) params += static_cast<double>(spec.count());
  const double activations = n * (3 * e + 8 * e + 3 * h) + b * (2 * l * h + h + kPairs + 16);
  s.bytes = 40 * params + 2 * 4 * activations;
  return s;
}

}  // namespace sb::deepfm
