// 'same' 1-D convolution. On NVIDIA tensor cores (f16, tf32, int8), where the pipeline takes the
// shape, an implicit GEMM: the pipelined GEMM's A tiles are x's rows shifted by each tap
// (load_a_rows in kernels/gemm_pipelined.cl), so the k x larger im2col columns are never
// written (and int8 quantizes the input once, not k times). Elsewhere the default: im2col, then
// linear.
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

bool OpenCLBackend::conv1d_implicit(int k, const Weight& w, int64_t channels) const {
  if (w.precision != Precision::f16 && w.precision != Precision::tf32 &&
      w.precision != Precision::int8)
    return false;
  if (!has_mma() || !gemm_pipelined(w.precision, w.k)) return false;
  // A K tile is 128 bytes of a row (64 halves, 32 floats, 128 int8) and must lie within one tap.
  const int64_t tile_k = w.precision == Precision::f16    ? 64
                         : w.precision == Precision::tf32 ? 32
                                                          : 128;
  return k >= 1 && channels % tile_k == 0;
}

bool OpenCLBackend::conv1d_gathers_columns(int k, const Weight& w, int64_t channels) const {
  return !conv1d_implicit(k, w, channels);
}

void OpenCLBackend::do_conv1d(const Tensor& x, int k, const Weight& w, Tensor& y,
                              const Epilogue& ep, const InputTransform& t, Tensor* columns) {
  const int64_t channels = x.dim(2), m = x.dim(0) * x.dim(1);
  const bool half_io = x.dtype() == DType::f16 || y.dtype() == DType::f16;
  if (half_io && !(w.precision == Precision::f16 && conv1d_implicit(k, w, channels)))
    throw std::invalid_argument(
        "conv1d: f16 input or output needs the f16 tensor-core pipeline "
        "(NVIDIA, C a multiple of 64), not " +
        std::string(precision_name(w.precision)) + " on " + device_name_);
  if (!conv1d_implicit(k, w, channels)) {
    Backend::do_conv1d(x, k, w, y, ep, t, columns);
    return;
  }
  // A 1-tap 'same' convolution is the plain GEMM over positions: no tap shifts, no sequence ends.
  const PipeConv conv = k == 1 && conv_fast_loads() ? PipeConv{} : PipeConv{k, x.dim(1)};
  const bool transformed = t.scale != nullptr || t.shift != nullptr || t.act != Act::none;
  if (w.precision == Precision::int8) {  // the input quantized once (not k x, as columns)
    Tensor in, xq = do_empty(x.shape(), DType::i8), scales;
    if (transformed) {
      in = do_empty(x.shape(), DType::f32);
      im2col(x, 1, in, t);
    }
    const PipeScales s8 = quantize_s8(transformed ? in : x, x.numel(), w, xq, scales);
    gemm_pipelined_mma(PipeKind::s8, xq, w.data, y, ep, m, w.n, w.k, s8, conv);
    return;
  }
  if (w.precision == Precision::tf32) {  // reads fp32 in place: only a transform needs a pass
    if (!transformed) {
      gemm_pipelined_mma(PipeKind::tf32, x, w.data, y, ep, m, w.n, w.k, {}, conv);
      return;
    }
    Tensor in = do_empty(x.shape(), DType::f32);
    im2col(x, 1, in, t);
    gemm_pipelined_mma(PipeKind::tf32, in, w.data, y, ep, m, w.n, w.k, {}, conv);
    return;
  }
  // cp.async copies bytes: the input is read in place where it is already half and untransformed
  // (Enformer's tower convs, whose pool applied BN + GELU: issue 27); otherwise it becomes half
  // first, transformed on the way.
  if (x.dtype() == DType::f16 && !transformed) {
    gemm_pipelined_mma(PipeKind::f16, x, w.data, y, ep, m, w.n, w.k, {}, conv);
    return;
  }
  Tensor xh = do_empty(x.shape(), DType::f16);
  launch_mma("channels_to_f16", quads(x.numel()), cl::NDRange(256), x, t.scale, t.scale ? 1 : 0,
             t.shift, t.shift ? 1 : 0, static_cast<int>(t.act),
             to_cl_int(channels, "conv1d channels"), to_cl_int(x.numel(), "conv1d input"), xh,
             x.dtype() == DType::f16 ? 1 : 0);
  gemm_pipelined_mma(PipeKind::f16, xh, w.data, y, ep, m, w.n, w.k, {}, conv);
}

}  // namespace sb
