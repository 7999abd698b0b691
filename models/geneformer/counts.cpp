#include "models/geneformer/counts.h"

namespace sb::geneformer {
namespace {

double weight_bytes(Precision p) {
  switch (p) {
    case Precision::f32:
    case Precision::tf32:
      return 4;
    case Precision::bf16:
    case Precision::f16:
      return 2;
    case Precision::int8:
      return 1;
  }
  return 4;
}

}  // namespace

double layer_flops(const Config& c) {
  const double tokens = static_cast<double>(c.batch * c.tokens), d = c.hidden, i = c.intermediate,
               s = c.tokens;
  const double linears = 2 * tokens * (4 * d * d + 2 * d * i);
  const double attention = 2 * 2 * tokens * s * d;  // QK^T and PV over all heads
  return linears + attention;
}

WorkCounts forward_counts(const Config& c, const Switches& sw, int64_t layers_run) {
  const double tokens = static_cast<double>(c.batch * c.tokens), d = c.hidden, i = c.intermediate,
               s = c.tokens, wb = weight_bytes(sw.precision);
  WorkCounts w;
  w.flops = layer_flops(c) * static_cast<double>(layers_run);
  // Per layer: GEMM inputs read and outputs written in fp32, weights once at their precision.
  const double io =
      4 * tokens * (d + 3 * d) + 4 * tokens * (d + d) + 4 * tokens * (d + i) + 4 * tokens * (i + d);
  const double weights = wb * (4 * d * d + 2 * d * i);
  const double attention = sw.fused_attention ? 4 * tokens * 4 * d  // q, k, v read, context written
                                              : 4 * tokens * 4 * d + 2 * 4 * tokens * s * c.heads;
  w.bytes = static_cast<double>(layers_run) * (io + weights + attention) +
            4 * tokens * d * 2;  // the embedding gather and its LayerNorm
  w.items = static_cast<double>(c.batch);
  w.item_name = "cells";
  w.precision = precision_name(sw.precision);
  return w;
}

}  // namespace sb::geneformer
