#include "models/deepfm/counts.h"

#include "models/deepfm/params.h"

namespace sb::deepfm {

StepCounts step_counts(const Config& c, const std::array<int64_t, 4>& cardinality) {
  const double b = static_cast<double>(c.batch), e = static_cast<double>(c.embed),
               f = static_cast<double>(c.ff_width()), h = static_cast<double>(c.deep_out()),
               n = 4 * b;
  // The deep branch's products and widths summed layer by layer (a checkpoint's may differ).
  double deep = 0, deep_acts = 0, in = 4 * e;
  for (int64_t l = 0; l < c.layers; ++l) {
    const auto w = static_cast<double>(c.deep_width(l));
    deep += in * w, deep_acts += w, in = w;
  }
  double gemm = 0;                          // multiply-adds
  gemm += n * e * 3 * e;                    // QKV
  gemm += 2 * b * 4 * 4 * e;                // scores and P V over all heads
  gemm += n * e * e;                        // out projection
  gemm += 2 * n * e * f;                    // feed-forward
  gemm += b * deep;                         // deep branch
  gemm += b * 4 * 4 * e;                    // FM pairs (as the Gram matrix)
  gemm += b * (h + kPairs) * (6 + 4 + 12);  // heads
  StepCounts s;
  s.forward_flops = 2 * gemm;
  s.flops = 3 * s.forward_flops;
  double params = 0;
  for (const auto& spec : param_specs(c, cardinality)) params += static_cast<double>(spec.count());
  const double activations = n * (3 * e + 8 * e + 3 * f) + b * (2 * deep_acts + h + kPairs + 16);
  s.bytes = 40 * params + 2 * 4 * activations;
  return s;
}

}  // namespace sb::deepfm
