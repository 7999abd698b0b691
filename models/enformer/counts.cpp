#include "models/enformer/counts.h"

namespace sb::enformer {
namespace {

double weight_bytes(Precision p) {
  switch (p) {
    case Precision::bf16:
    case Precision::f16:
      return 2;
    case Precision::int8:
      return 1;
    default:
      return 4;
  }
}

struct Tally {
  double flops = 0, bytes = 0, wbytes = 4;
  // rows x (k -> n) GEMM
  void gemm(double rows, double k, double n) {
    flops += 2 * rows * k * n;
    bytes += 4 * rows * k + wbytes * k * n + 4 * rows * n;
  }
};

}  // namespace

WorkCounts forward_counts(const Config& c, Precision weights) {
  Tally t;
  t.wbytes = weight_bytes(weights);
  const auto f = c.filters();
  const double b = static_cast<double>(c.batch);
  double len = static_cast<double>(c.input_bp);
  t.gemm(b * len, 15 * 4, f[0]);  // stem conv
  t.gemm(b * len, f[0], f[0]);    // stem pointwise conv block
  t.gemm(b * len, f[0], f[0]);    // attention-pool logits
  len /= 2;
  for (int64_t i = 0; i < c.tower_blocks(); ++i) {
    t.gemm(b * len, 5.0 * f[i], f[i + 1]);
    t.gemm(b * len, f[i + 1], f[i + 1]);
    t.gemm(b * len, f[i + 1], f[i + 1]);
    len /= 2;
  }
  const double n = static_cast<double>(c.tokens()), d = static_cast<double>(c.dim);
  const double hk = static_cast<double>(c.heads * c.dk), h = static_cast<double>(c.heads);
  const double dk = static_cast<double>(c.dk), dv = static_cast<double>(c.dv());
  for (int l = 0; l < c.depth; ++l) {
    t.gemm(b * n, d, hk);                                          // q
    t.gemm(b * n, d, hk);                                          // k
    t.gemm(b * n, d, d);                                           // v
    t.gemm(2 * n - 1, static_cast<double>(c.rel_features()), hk);  // rel_k
    t.flops += 2 * b * h * n * n * dk;                             // content logits
    t.flops += 2 * b * h * n * n * dk;  // positional logits (the n x n band actually used)
    t.flops += 2 * b * h * n * n * dv;  // attention x values
    t.bytes += 4 * b * n * (2 * hk + d) + 4 * (2 * n - 1) * hk + 4 * b * n * d;
    t.gemm(b * n, d, d);      // out projection
    t.gemm(b * n, d, 2 * d);  // feed-forward
    t.gemm(b * n, 2 * d, d);
  }
  const double tg = static_cast<double>(c.target);
  t.gemm(b * tg, d, 2 * d);
  t.gemm(b * tg, 2 * d, static_cast<double>(c.human_out));
  t.gemm(b * tg, 2 * d, static_cast<double>(c.mouse_out));
  WorkCounts w;
  w.flops = t.flops;
  w.bytes = t.bytes;
  w.items = b;
  w.item_name = "sequences";
  w.precision = precision_name(weights);
  return w;
}

}  // namespace sb::enformer
