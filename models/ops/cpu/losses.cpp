// The losses (BCE with logits, cross-entropy with class weights and label smoothing) with their
// gradients, and the sum of squares. Sums run in double over fixed blocks whose partials are
// then added in block order: the same bits on every call, whatever the threads.
#include <algorithm>
#include <cmath>
#include <vector>

#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/op_times.h"
#include "models/ops/cpu/parallel.h"

namespace sb::cpu {

namespace {

// Elements per partial sum; fixed, so the order of additions never depends on threads.
constexpr int64_t kSumBlock = 4096;
// Independent accumulators within a block, element i into lane i % kSumLanes, combined in a fixed
// order: one dependent chain of double adds per block kept the loop at an add's latency (DeepFM's
// sum_squares over 2.3 M gradients, 0.29 ms of its amp step at 16 threads,
// results/h200-host/cpu35-2026-11-29); lanes the compiler can keep in vector registers.
constexpr int64_t kSumLanes = 16;

// sum over [0, n) of term(i), in double: per-block partials in parallel, then in block order.
template <class Term>
double deterministic_sum(int64_t n, int64_t cost, Term&& term) {
  const int64_t blocks = (n + kSumBlock - 1) / kSumBlock;
  std::vector<double> partial(static_cast<size_t>(blocks), 0.0);
  parallel_for(blocks, kSumBlock * cost, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      double lane[kSumLanes] = {};
      const int64_t begin = b * kSumBlock, end = std::min(n, begin + kSumBlock);
      int64_t i = begin;
      for (; i + kSumLanes <= end; i += kSumLanes)
        for (int64_t l = 0; l < kSumLanes; ++l) lane[l] += term(i + l);
      for (; i < end; ++i) lane[(i - begin) % kSumLanes] += term(i);
      for (int64_t width = kSumLanes / 2; width > 0; width /= 2)
        for (int64_t l = 0; l < width; ++l) lane[l] += lane[l + width];
      partial[b] = lane[0];
    }
  });
  double total = 0;
  for (double p : partial) total += p;
  return total;
}

}  // namespace

void CpuBackend::do_bce_with_logits(const Tensor& logits, const Tensor& targets, float scale,
                                    Tensor& loss, int64_t slot, Tensor& dlogits) {
  const OpScope op_scope(op_log(),
                         [&] { return "bce_with_logits " + std::to_string(logits.numel()); });
  const int64_t n = logits.numel();
  const float* z = f32_data(logits, "bce_with_logits logits");
  const float* t = f32_data(targets, "bce_with_logits targets");
  float* dz = f32_data(dlogits, "bce_with_logits dlogits");
  const double grad_scale = static_cast<double>(scale) / static_cast<double>(n);
  const double sum = deterministic_sum(n, 8, [&](int64_t i) {
    const double zi = z[i], ti = t[i];
    const double e = std::exp(-std::abs(zi));  // in (0, 1]: no overflow either way
    const double sig = zi >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
    dz[i] = static_cast<float>(grad_scale * (sig - ti));
    return std::max(zi, 0.0) - zi * ti + std::log1p(e);
  });
  f32_data(loss, "bce_with_logits loss")[slot] = static_cast<float>(sum / static_cast<double>(n));
}

// Per row r (p = softmax(z_r), lse its log-normalizer, W = sum_r w[y_r], S = sum_c w[c]):
//   loss_r  = (1-eps) w[y_r] (lse - z[y_r]) + (eps/C) sum_c w[c] (lse - z[c])
//   dz[r,j] = scale/W (p_j ((1-eps) w[y_r] + (eps/C) S) - (1-eps) w[y_r] [j = y_r] - (eps/C) w[j])
// loss = sum_r loss_r / W, as torch.nn.functional.cross_entropy with weight and label_smoothing.
void CpuBackend::do_cross_entropy(const Tensor& logits, const Tensor& labels,
                                  const Tensor* class_weights, float smoothing, float scale,
                                  Tensor& loss, int64_t slot, Tensor& dlogits) {
  const OpScope op_scope(op_log(),
                         [&] { return "cross_entropy " + std::to_string(logits.numel()); });
  const int64_t rows = logits.dim(0), c = logits.dim(1);
  const float* z = f32_data(logits, "cross_entropy logits");
  const int32_t* y = i32_data(labels, "cross_entropy labels");
  const float* w =
      class_weights ? f32_data(*class_weights, "cross_entropy class weights") : nullptr;
  float* dz = f32_data(dlogits, "cross_entropy dlogits");
  const double eps = smoothing, smooth = eps / static_cast<double>(c);
  auto weight = [&](int64_t j) { return w ? static_cast<double>(w[j]) : 1.0; };
  double sum_w = 0;  // S, in class order
  for (int64_t j = 0; j < c; ++j) sum_w += weight(j);

  std::vector<double> lse(static_cast<size_t>(rows)), row_loss(static_cast<size_t>(rows));
  parallel_for(rows, 3 * c * 8, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* zr = z + r * c;
      double mx = zr[0];
      for (int64_t j = 1; j < c; ++j) mx = std::max(mx, static_cast<double>(zr[j]));
      double s = 0;
      for (int64_t j = 0; j < c; ++j) s += std::exp(zr[j] - mx);
      const double l = mx + std::log(s);
      double smooth_sum = 0;
      if (eps > 0)
        for (int64_t j = 0; j < c; ++j) smooth_sum += weight(j) * (l - zr[j]);
      lse[r] = l;
      row_loss[r] = (1 - eps) * weight(y[r]) * (l - zr[y[r]]) + smooth * smooth_sum;
    }
  });
  double total_w = 0, total = 0;  // W and the numerator, in row order
  for (int64_t r = 0; r < rows; ++r) {
    total_w += weight(y[r]);
    total += row_loss[r];
  }
  f32_data(loss, "cross_entropy loss")[slot] = static_cast<float>(total / total_w);

  const double g = static_cast<double>(scale) / total_w;
  parallel_for(rows, c * 8, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* zr = z + r * c;
      const double wy = (1 - eps) * weight(y[r]), coef = wy + smooth * sum_w;
      for (int64_t j = 0; j < c; ++j) {
        const double p = std::exp(zr[j] - lse[r]);
        double d = p * coef - smooth * weight(j);
        if (j == y[r]) d -= wy;
        dz[r * c + j] = static_cast<float>(g * d);
      }
    }
  });
}

void CpuBackend::do_sum_squares(const Tensor& x, Tensor& out, int64_t slot) {
  const OpScope op_scope(op_log(), [&] { return "sum_squares " + std::to_string(x.numel()); });
  const float* xp = x.numel() > 0 ? f32_data(x, "sum_squares input") : nullptr;
  const double sum = deterministic_sum(x.numel(), 1, [&](int64_t i) {
    const double v = xp[i];
    return v * v;
  });
  f32_data(out, "sum_squares out")[slot] = static_cast<float>(sum);
}

}  // namespace sb::cpu
