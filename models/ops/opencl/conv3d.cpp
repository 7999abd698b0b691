// conv3d and its backward ops on OpenCL (kernels/conv3d.cl): column GEMMs through CLBlast over
// chunks of output voxels, so the column buffer stays under kColumnBudget floats whatever the
// volume. Rows are the flattened (n, output voxel) index; ncdhw chunks stay inside one sample
// (its output [out, voxels] is one matrix), ndhwc chunks run across samples ([N voxels, out]).
//   forward:          vol2col, then y_chunk = W . cols (ncdhw) or cols . W^T (ndhwc); bias
//                     added by a kernel afterwards.
//   backward-weights: vol2col, then dW (+)= dy_chunk . cols^T (ncdhw) or dy_chunk^T . cols
//                     (ndhwc), accumulated over chunks in order (beta 1 after the first); dbias
//                     by a work-group tree per channel.
//   backward-data:    cols = W^T . dy_chunk (ncdhw) or dy_chunk . W (ndhwc), then col2vol: every
//                     dx element gathers its own contributions (no atomics); the first chunk of
//                     a sample writes, later ones add.
// Every sum runs in a fixed order, so results repeat bit for bit.
// On NVIDIA, tf32/f16 ndhwc forward passes (f16: input channels a multiple of 8) run as an
// implicit GEMM instead (conv3d_igemm.cpp), and so do their backward passes (tf32 weight
// gradients, tf32/f16 data gradients: conv3d_bwd_igemm.cpp), and ncdhw calls of those kinds
// through channels-last copies (conv3d_ncdhw.cpp); STAGEBENCH_CONV_IGEMM=off keeps them all here.
#include <clblast.h>

#include <algorithm>
#include <string>

#include "models/ops/opencl/clblast_status.h"
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

constexpr size_t kVolumeGroup = 256;
// Column buffer floats per chunk (128 MiB).
constexpr int64_t kColumnBudget = int64_t{1} << 25;

struct Geometry {
  int64_t od, oh, ow, voxels, taps, K;
  bool channels_last;
};

Geometry geometry(const Conv3dShape& s) {
  Geometry g{};
  g.od = s.out_size(s.d, false);
  g.oh = s.out_size(s.h, false);
  g.ow = s.out_size(s.w, false);
  g.voxels = g.od * g.oh * g.ow;
  g.taps = int64_t{s.kernel} * s.kernel * s.kernel;
  g.K = s.in_channels * g.taps;
  g.channels_last = s.layout == Layout3d::ndhwc;
  return g;
}

// Calls body(r0, rows) over the row chunks, in increasing order.
template <class Body>
void for_each_chunk(const Conv3dShape& s, const Geometry& g, Body&& body) {
  const int64_t per_chunk = std::max<int64_t>(1, kColumnBudget / g.K);
  if (g.channels_last) {
    const int64_t total = s.batch * g.voxels;
    for (int64_t r0 = 0; r0 < total; r0 += per_chunk) body(r0, std::min(per_chunk, total - r0));
    return;
  }
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t v0 = 0; v0 < g.voxels; v0 += per_chunk)
      body(n * g.voxels + v0, std::min(per_chunk, g.voxels - v0));
}

Conv3dShape with(const Conv3dShape& s, Precision p, Layout3d layout) {
  Conv3dShape t = s;
  t.precision = p, t.layout = layout;
  return t;
}

// bf16 calls whose channels the 2-byte implicit GEMMs cannot copy (not a multiple of 8: DynUNet's
// single-channel input and output convolutions) run at tf32 on the tf32 implicit GEMM, where it
// takes them, rather than as vol2col columns: more mantissa than asked, no column buffer. On the
// H100 the columns' GEMM and its packing took 4.9 of the channels-last step's 33.3 ms of device
// time (results/h100/gpu27-2026-11-28/check/).
template <class Unavailable>
bool bf16_at_tf32(const Conv3dShape& s, Unavailable&& unavailable) {
  return s.precision == Precision::bf16 &&
         !unavailable(with(s, Precision::bf16, Layout3d::ndhwc)).empty() &&
         unavailable(with(s, Precision::tf32, Layout3d::ndhwc)).empty();
}

}  // namespace

// Row-major C[m, n] = A . B (+ beta C) with the given transposes, offsets and leading dims.
void OpenCLBackend::conv3d_gemm(Precision p, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                                const Tensor& a, int64_t a_off, int64_t lda, const Tensor& b,
                                int64_t b_off, int64_t ldb, float beta, Tensor& c, int64_t c_off,
                                int64_t ldc) {
  // bf16 columns (channels the 2-byte implicit GEMMs cannot copy) at tf32: at least bf16's
  // precision, on the mma GEMM that exists.
  if (p == Precision::bf16) p = Precision::tf32;
  if (p != Precision::f32) {
    GemmBatch g;
    g.m = m, g.n = n, g.k = k, g.trans_a = ta, g.trans_b = tb, g.beta = beta, g.precision = p;
    g.lda = lda, g.ldb = ldb, g.ldc = ldc;
    g.a_offsets = {a_off}, g.b_offsets = {b_off}, g.c_offsets = {c_off};
    if (!gemm_batched_on_mma(g))
      throw std::invalid_argument(std::string("conv3d: ") + precision_name(p) +
                                  " products need the NVIDIA mma kernels, absent here");
    gemm_batched_mma(g, a, b, c);
    return;
  }
  if (portable_gemm_) {
    GemmBatch g;
    g.m = m, g.n = n, g.k = k, g.trans_a = ta, g.trans_b = tb, g.beta = beta;
    g.lda = lda, g.ldb = ldb, g.ldc = ldc;
    g.a_offsets = {a_off}, g.b_offsets = {b_off}, g.c_offsets = {c_off};
    gemm_portable(g, a, b, c);
    return;
  }
  cl_command_queue queue = runtime_->queue()();
  events_.begin_span();
  const auto status = clblast::Gemm<float>(
      clblast::Layout::kRowMajor, clblast_transpose(ta), clblast_transpose(tb),
      static_cast<size_t>(m), static_cast<size_t>(n), static_cast<size_t>(k), 1.0f,
      device_buffer(a)(), static_cast<size_t>(a_off), static_cast<size_t>(lda), device_buffer(b)(),
      static_cast<size_t>(b_off), static_cast<size_t>(ldb), beta, device_buffer(c)(),
      static_cast<size_t>(c_off), static_cast<size_t>(ldc), &queue, nullptr);
  events_.end_span("clblast_gemm");
  check_clblast(status, "Gemm");
}

// dW-shaped GEMMs (a small output, a reduction over every voxel) leave most of a GPU idle:
// measured on an H100, CLBlast ran DynUNet's dW[32, 864] over 38,836 rows at 1.0 TFLOP/s against
// 12 TFLOP/s for the forward GEMM of the same sizes. So fp32 weight gradients split the
// reduction into `slices` equal parts, one strided-batched GEMM writes each part's product into
// its own slot, and a GEMV with a ones vector adds the slots in slot order (beta folds in what
// dW already holds): the same summation order on every call. DynUNet full's fp32 training step
// went from 1,095 to 335 ms on the H100.
void OpenCLBackend::conv3d_gemm_split_k(Precision p, bool ta, bool tb, int64_t m, int64_t n,
                                        int64_t k, const Tensor& a, int64_t a_off, int64_t lda,
                                        int64_t a_step, const Tensor& b, int64_t b_off, int64_t ldb,
                                        int64_t b_step, float beta, Tensor& c) {
  // Enough slices to give the GPU work (a slot per few thousand outputs), each at least 512
  // long, and the slots at most 2^24 floats.
  const int64_t outputs = m * n;
  const int64_t slices =
      std::min<int64_t>({64, k / 512, std::max<int64_t>(1, (int64_t{1} << 24) / outputs)});
  // Tensor-core precisions are not split: on the H100 the mma kernels' batch of slices (and the
  // slices one by one) ran DynUNet's tf32 step at 1.5-1.6 s against 1.05 s unsplit.
  if (slices < 2 || p != Precision::f32) {
    conv3d_gemm(p, ta, tb, m, n, k, a, a_off, lda, b, b_off, ldb, beta, c, 0, n);
    return;
  }
  const int64_t per = k / slices, rest = k - per * slices;
  const int64_t slots = slices + (rest > 0 ? 1 : 0);
  Tensor partial = empty({slots, outputs});
  Tensor ones = empty({slots});
  fill(ones, 1.0f);
  if (portable_gemm_) {  // the same slices, slots and sum, on gemm_general
    GemmBatch parts;
    parts.m = m, parts.n = n, parts.k = per, parts.trans_a = ta, parts.trans_b = tb;
    parts.lda = lda, parts.ldb = ldb, parts.ldc = n;
    for (int64_t i = 0; i < slices; ++i) {
      parts.a_offsets.push_back(a_off + a_step * per * i);
      parts.b_offsets.push_back(b_off + b_step * per * i);
      parts.c_offsets.push_back(outputs * i);
    }
    gemm_portable(parts, a, b, partial);
    if (rest > 0)
      conv3d_gemm(p, ta, tb, m, n, rest, a, a_off + a_step * per * slices, lda, b,
                  b_off + b_step * per * slices, ldb, 0.0f, partial, slices * outputs, n);
    GemmBatch sum;  // c [1, outputs] = ones [1, slots] . partial [slots, outputs] + beta c
    sum.m = 1, sum.n = outputs, sum.k = slots, sum.trans_b = false, sum.beta = beta;
    sum.lda = slots, sum.ldb = outputs, sum.ldc = outputs;
    sum.a_offsets = sum.b_offsets = sum.c_offsets = {0};
    gemm_portable(sum, ones, partial, c);
    return;
  }
  cl_command_queue queue = runtime_->queue()();
  auto u = [](int64_t v) { return static_cast<size_t>(v); };
  events_.begin_span();
  auto status = clblast::GemmStridedBatched<float>(
      clblast::Layout::kRowMajor, clblast_transpose(ta), clblast_transpose(tb), u(m), u(n), u(per),
      1.0f, device_buffer(a)(), u(a_off), u(lda), u(a_step * per), device_buffer(b)(), u(b_off),
      u(ldb), u(b_step * per), 0.0f, device_buffer(partial)(), 0, u(n), u(outputs), u(slices),
      &queue, nullptr);
  events_.end_span("clblast_gemm_split_k");
  check_clblast(status, "GemmStridedBatched");
  if (rest > 0)  // the remainder in the last slot
    conv3d_gemm(p, ta, tb, m, n, rest, a, a_off + a_step * per * slices, lda, b,
                b_off + b_step * per * slices, ldb, 0.0f, partial, slices * outputs, n);
  // CLBlast's GEMV computes beta * y even for beta = 0 (its level-3 routines skip it), so NaN
  // bits left in a pooled dW by an earlier user came through as NaN: the intermittent NaNs of
  // DynUNet's ladder test on PoCL. A zeroed dW and beta 1 give the same sum in the same order.
  if (beta == 0.0f) fill(c, 0.0f);
  events_.begin_span();
  status = clblast::Gemv<float>(clblast::Layout::kRowMajor, clblast::Transpose::kYes, u(slots),
                                u(outputs), 1.0f, device_buffer(partial)(), 0, u(outputs),
                                device_buffer(ones)(), 0, 1, 1.0f, device_buffer(c)(), 0, 1, &queue,
                                nullptr);
  events_.end_span("clblast_gemv_split_k_sum");
  check_clblast(status, "GemmStridedBatched");
}

void OpenCLBackend::conv3d_columns(const char* kernel_name, const Conv3dShape& s, const Tensor& in,
                                   int64_t r0, int64_t rows, int64_t base, int64_t items,
                                   Tensor& out) {
  const Geometry g = geometry(s);
  const int64_t ld_r = g.channels_last ? g.K : 1, ld_k = g.channels_last ? 1 : rows;
  const bool to_columns = std::string(kernel_name) == "conv3d_vol2col";
  if (to_columns)
    launch(kernel_name, cl::NDRange(round_up(items, kVolumeGroup)), cl::NDRange(kVolumeGroup), in,
           g.channels_last ? 1 : 0, s.in_channels, s.d, s.h, s.w, s.kernel, s.stride, s.padding,
           g.od, g.oh, g.ow, r0, rows, ld_r, ld_k, items, out);
  else
    launch(kernel_name, cl::NDRange(round_up(items, kVolumeGroup)), cl::NDRange(kVolumeGroup), in,
           g.channels_last ? 1 : 0, s.in_channels, s.d, s.h, s.w, s.kernel, s.stride, s.padding,
           g.od, g.oh, g.ow, r0, rows, ld_r, ld_k, base, items, out);
}

void OpenCLBackend::do_conv3d(const Conv3dShape& s, const Tensor& x, const Tensor& w,
                              const Tensor* bias, Tensor& y) {
  const Geometry g = geometry(s);
  to_cl_int(x.numel(), "conv3d input size");
  to_cl_int(y.numel(), "conv3d output size");
  if (conv3d_narrow(s, x, w, bias, y)) return;  // one channel in or out: conv3d_narrow.cpp
  if (bf16_at_tf32(s, [&](const Conv3dShape& t) { return conv3d_implicit_unavailable(t); })) {
    do_conv3d(with(s, Precision::tf32, s.layout), x, w, bias, y);
    return;
  }
  if (conv3d_implicit_unavailable(s).empty()) {  // no columns: conv3d_igemm.cpp
    conv3d_igemm(s, x, w, bias, y);
    return;
  }
  if (conv3d_ncdhw_igemm(s, x, w, bias, y)) return;  // conv3d_ncdhw.cpp
  const int64_t co = s.out_channels;
  Tensor cols = empty({std::min(kColumnBudget, s.batch * g.voxels * g.K)});
  for_each_chunk(s, g, [&](int64_t r0, int64_t rows) {
    conv3d_columns("conv3d_vol2col", s, x, r0, rows, 0, rows * g.K, cols);
    if (g.channels_last)  // y[r0 .. r0 + rows, out] = cols[rows, K] . W^T
      conv3d_gemm(s.precision, false, true, rows, co, g.K, cols, 0, g.K, w, 0, g.K, 0.0f, y,
                  r0 * co, co);
    else {  // y_n[out, v0 .. v0 + rows] = W[out, K] . cols[K, rows]
      const int64_t n = r0 / g.voxels, v0 = r0 - n * g.voxels;
      conv3d_gemm(s.precision, false, false, co, rows, g.K, w, 0, g.K, cols, 0, rows, 0.0f, y,
                  n * co * g.voxels + v0, g.voxels);
    }
  });
  if (bias == nullptr) return;
  const int64_t total = y.numel();
  launch("conv3d_add_bias", cl::NDRange(round_up(total, kVolumeGroup)), cl::NDRange(kVolumeGroup),
         y, *bias, co, g.channels_last ? int64_t{1} : g.voxels, total);
}

void OpenCLBackend::do_conv3d_backward_data(const Conv3dShape& s, const Tensor& dy, const Tensor& w,
                                            Tensor& dx) {
  const Geometry g = geometry(s);
  to_cl_int(dx.numel(), "conv3d_backward_data dx size");
  to_cl_int(dy.numel(), "conv3d_backward_data dy size");
  if (conv3d_backward_data_narrow(s, dy, w, dx)) return;
  if (bf16_at_tf32(s, [&](const Conv3dShape& t) {
        return conv3d_backward_implicit_unavailable(t, false);
      })) {
    do_conv3d_backward_data(with(s, Precision::tf32, s.layout), dy, w, dx);
    return;
  }
  if (conv3d_backward_data_igemm(s, dy, w, dx)) return;        // conv3d_bwd_igemm.cpp
  if (conv3d_backward_data_ncdhw_igemm(s, dy, w, dx)) return;  // conv3d_ncdhw.cpp
  const int64_t co = s.out_channels;
  const int64_t per_sample = dx.numel() / s.batch;
  Tensor cols = empty({std::min(kColumnBudget, s.batch * g.voxels * g.K)});
  for_each_chunk(s, g, [&](int64_t r0, int64_t rows) {
    if (g.channels_last)  // cols[rows, K] = dy[r0 .. r0 + rows, out] . W[out, K]
      conv3d_gemm(s.precision, false, false, rows, g.K, co, dy, r0 * co, co, w, 0, g.K, 0.0f, cols,
                  0, g.K);
    else {  // cols[K, rows] = W^T[K, out] . dy_n[out, v0 .. v0 + rows]
      const int64_t n = r0 / g.voxels, v0 = r0 - n * g.voxels;
      conv3d_gemm(s.precision, true, false, g.K, rows, co, w, 0, g.K, dy, n * co * g.voxels + v0,
                  g.voxels, 0.0f, cols, 0, rows);
    }
    // The samples this chunk touches: their dx elements are contiguous in both layouts.
    const int64_t n_lo = r0 / g.voxels, n_hi = (r0 + rows - 1) / g.voxels;
    conv3d_columns("conv3d_col2vol", s, cols, r0, rows, n_lo * per_sample,
                   (n_hi - n_lo + 1) * per_sample, dx);
  });
}

void OpenCLBackend::do_conv3d_backward_weights(const Conv3dShape& s, const Tensor& x,
                                               const Tensor& dy, Tensor& dw, Tensor* dbias) {
  const Geometry g = geometry(s);
  to_cl_int(x.numel(), "conv3d_backward_weights input size");
  to_cl_int(dy.numel(), "conv3d_backward_weights dy size");
  const int64_t co = s.out_channels;
  if (conv3d_backward_weights_narrow(s, x, dy, dw, dbias)) return;
  // conv3d_bwd_igemm.cpp (dW and dbias), else columns
  if (conv3d_backward_weights_igemm(s, x, dy, dw, dbias)) return;
  if (conv3d_backward_weights_ncdhw_igemm(s, x, dy, dw, dbias)) return;  // conv3d_ncdhw.cpp
  Tensor cols = empty({std::min(kColumnBudget, s.batch * g.voxels * g.K)});
  bool first = true;
  for_each_chunk(s, g, [&](int64_t r0, int64_t rows) {
    conv3d_columns("conv3d_vol2col", s, x, r0, rows, 0, rows * g.K, cols);
    const float beta = first ? 0.0f : 1.0f;
    first = false;
    if (g.channels_last) {  // dW[out, K] (+)= dy[r0 .. r0 + rows, out]^T . cols[rows, K]
      // a slice of the rows is a row range of both
      conv3d_gemm_split_k(s.precision, true, false, co, g.K, rows, dy, r0 * co, co, co, cols, 0,
                          g.K, g.K, beta, dw);
    } else {  // dW[out, K] (+)= dy_n[out, v0 .. v0 + rows] . cols[K, rows]^T
      const int64_t n = r0 / g.voxels, v0 = r0 - n * g.voxels;
      // a slice of the rows is a column range of both
      conv3d_gemm_split_k(s.precision, false, true, co, g.K, rows, dy, n * co * g.voxels + v0,
                          g.voxels, 1, cols, 0, rows, 1, beta, dw);
    }
  });
  if (dbias == nullptr) return;
  const size_t wg = reduce_group();
  launch("conv3d_bias_grad", cl::NDRange(static_cast<size_t>(co) * wg), cl::NDRange(wg), dy,
         g.channels_last ? 1 : 0, co, g.voxels, s.batch, *dbias);
}

}  // namespace sb
