#include "models/dynunet/counts.h"

namespace sb::dynunet {
namespace {

struct Tally {
  const Config& c;
  double fwd_flops = 0, fwd_bytes = 0, bwd_flops = 0, bwd_bytes = 0;

  double vol(int64_t channels, int64_t edge) const {
    return 4.0 * static_cast<double>(c.batch * channels * edge * edge * edge);
  }
  // A convolution producing out channels at out_edge from in channels at in_edge.
  void conv(int64_t in, int64_t out, int64_t in_edge, int64_t out_edge, int k, bool data_grad) {
    const double macs = static_cast<double>(c.batch * out * out_edge * out_edge * out_edge) *
                        static_cast<double>(in * k * k * k);
    const double weights = 4.0 * static_cast<double>(in * out * k * k * k);
    fwd_flops += 2 * macs;
    fwd_bytes += vol(in, in_edge) + vol(out, out_edge) + weights;
    bwd_flops += (data_grad ? 4 : 2) * macs;
    bwd_bytes += (data_grad ? 2 : 1) * (vol(in, in_edge) + vol(out, out_edge) + weights);
  }
  void norm(int64_t channels, int64_t edge) {
    fwd_bytes += 3 * vol(channels, edge);
    bwd_bytes += 4 * vol(channels, edge);
  }
  void res(int64_t in, int64_t out, int64_t edge, int stride, bool first) {
    const int64_t oe = edge / stride;
    conv(in, out, edge, oe, 3, !first);
    conv(out, out, oe, oe, 3, true);
    conv(in, out, edge, oe, 1, !first);
    for (int i = 0; i < 3; ++i) norm(out, oe);
  }
  void up(int64_t in, int64_t out, int64_t edge) {
    const int64_t oe = 2 * edge;
    conv(out, in, oe, edge, 2, true);   // transposed: as many products as the forward conv
    fwd_bytes += 2 * vol(2 * out, oe);  // the concatenation
    conv(2 * out, out, oe, oe, 3, true);
    conv(out, out, oe, oe, 3, true);
    for (int i = 0; i < 2; ++i) norm(out, oe);
  }
};

Tally tally(const Config& c) {
  Tally t{c};
  const auto [f1, f2, f3] = c.filters;
  const int64_t p = c.patch;
  t.res(1, f1, p, 1, true);
  t.res(f1, f2, p, 2, false);
  t.res(f2, f3, p / 2, 2, false);
  t.up(f3, f2, p / 4);
  t.up(f2, f1, p / 2);
  t.conv(f1, 1, p, p, 1, true);
  return t;
}

}  // namespace

PassCounts forward_counts(const Config& c) {
  const Tally t = tally(c);
  return {t.fwd_flops, t.fwd_bytes};
}

PassCounts step_counts(const Config& c) {
  const Tally t = tally(c);
  return {t.fwd_flops + t.bwd_flops, t.fwd_bytes + t.bwd_bytes};
}

}  // namespace sb::dynunet
