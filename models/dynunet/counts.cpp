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
  void conv(int64_t in, int64_t out, int64_t in_edge, int64_t out_edge, int64_t k, bool data_grad) {
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
  void res(int64_t in, int64_t out, int64_t edge, int64_t oe, int64_t k, bool first) {
    conv(in, out, edge, oe, k, !first);
    conv(out, out, oe, oe, k, true);
    conv(in, out, edge, oe, 1, !first);
    for (int i = 0; i < 3; ++i) norm(out, oe);
  }
  // Up from `edge` to `oe` (the transposed convolution's kernel and stride: oe / edge).
  void up(int64_t in, int64_t out, int64_t edge, int64_t oe, int64_t k) {
    conv(out, in, oe, edge, oe / edge, true);  // transposed: as many products as the forward conv
    fwd_bytes += 2 * vol(2 * out, oe);         // the concatenation
    conv(2 * out, out, oe, oe, k, true);
    conv(out, out, oe, oe, k, true);
    for (int i = 0; i < 2; ++i) norm(out, oe);
  }
};

Tally tally(const Config& c) {
  Tally t{c};
  const std::vector<int64_t>& f = c.filters;
  const std::vector<int64_t> e = c.edges();
  const int64_t p = c.patch, levels = c.levels();
  for (int64_t i = 0; i < levels; ++i)
    t.res(i == 0 ? c.in_channels : f[i - 1], f[i], i == 0 ? p : e[i - 1], e[i], c.kernels[i],
          i == 0);
  for (int64_t l = levels - 1; l > 0; --l) t.up(f[l], f[l - 1], e[l], e[l - 1], c.kernels[l]);
  return t;
}

// The output block: a 1x1x1 convolution to the classes.
void output_conv(Tally& t) {
  const Config& c = t.c;
  t.conv(c.filters[0], c.out_channels, c.patch, c.patch, 1, true);
}

}  // namespace

PassCounts forward_counts(const Config& c) {
  Tally t = tally(c);
  output_conv(t);
  return {t.fwd_flops, t.fwd_bytes};
}

PassCounts step_counts(const Config& c) {
  Tally t = tally(c);
  output_conv(t);
  return {t.fwd_flops + t.bwd_flops, t.fwd_bytes + t.bwd_bytes};
}

PassCounts recompute_counts(const Config& c) {
  const Tally t = tally(c);  // the blocks without the output convolution
  return {t.fwd_flops, t.fwd_bytes};
}

}  // namespace sb::dynunet
