// conv3d's ncdhw calls on the channels-last implicit GEMMs (issue 27). DynUNet's bf16-mixed
// stage keeps the ladder's order (reduced precision before channels-last), so its volumes are
// ncdhw; on vol2col/col2vol with the tf32 GEMM that stage ran at 0.37x of the fp32 baseline on
// the H100 (results/h100/dynunet-full-2026-11-28/). As cuDNN does for NCHW tensors on tensor
// cores, each call here copies its ncdhw operands to ndhwc (volume_transpose), runs the ndhwc
// implicit GEMM, and copies the result back: two extra passes over each operand, against
// vol2col's 27 copies of the input. A single channel needs no copy: both layouts are [N, V].

#include "models/ops/knobs.h"
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

Conv3dShape channels_last(const Conv3dShape& s) {
  Conv3dShape t = s;
  t.layout = Layout3d::ndhwc;
  return t;
}

}  // namespace

bool OpenCLBackend::ncdhw_copies_requested() {
  return read_knob("STAGEBENCH_CONV_NCDHW", false, {{"auto", false}, {"channels_last", true}});
}

void OpenCLBackend::transpose_batched(const Tensor& x, int64_t batch, int64_t rows, int64_t cols,
                                      Tensor& y) {
  const int64_t tiles_c = (cols + 15) / 16, tiles_r = (rows + 15) / 16;
  launch("volume_transpose",
         cl::NDRange(static_cast<size_t>(tiles_c * tiles_r) * 16, 16, static_cast<size_t>(batch)),
         cl::NDRange(16, 16, 1), x, to_cl_int(rows, "transpose rows"),
         to_cl_int(cols, "transpose columns"), to_cl_int(tiles_c, "transpose tiles"), y);
}

const Tensor& OpenCLBackend::ncdhw_as_ndhwc(const Tensor& x, int64_t batch, int64_t channels,
                                            Tensor& store) {
  if (channels == 1) return x;
  store = empty({x.numel()});
  transpose_batched(x, batch, channels, x.numel() / (batch * channels), store);
  return store;
}

bool OpenCLBackend::conv3d_ncdhw_igemm(const Conv3dShape& s, const Tensor& x, const Tensor& w,
                                       const Tensor* bias, Tensor& y) {
  const Conv3dShape t = channels_last(s);
  if (s.layout != Layout3d::ncdhw) return false;
  const bool igemm = conv3d_implicit_unavailable(t).empty();
  if (!igemm && !ncdhw_copies_) return false;
  // Forced copies without the implicit GEMM: the ndhwc call as do_conv3d takes it (vol2col).
  const auto conv = [&](const Tensor& xl, Tensor& out) {
    if (igemm)
      conv3d_igemm(t, xl, w, bias, out);
    else
      do_conv3d(t, xl, w, bias, out);
  };
  Tensor xs, ys;
  const Tensor& xl = ncdhw_as_ndhwc(x, s.batch, s.in_channels, xs);
  if (s.out_channels == 1) {
    conv(xl, y);
    return true;
  }
  ys = empty({y.numel()});
  conv(xl, ys);
  transpose_batched(ys, s.batch, y.numel() / (s.batch * s.out_channels), s.out_channels, y);
  return true;
}

bool OpenCLBackend::conv3d_backward_data_ncdhw_igemm(const Conv3dShape& s, const Tensor& dy,
                                                     const Tensor& w, Tensor& dx) {
  const Conv3dShape t = channels_last(s);
  if (s.layout != Layout3d::ncdhw || !conv3d_backward_implicit_unavailable(t, false).empty())
    return false;
  Tensor dys, dxs;
  const Tensor& dyl = ncdhw_as_ndhwc(dy, s.batch, s.out_channels, dys);
  if (s.in_channels == 1) return conv3d_backward_data_igemm(t, dyl, w, dx);
  dxs = empty({dx.numel()});
  conv3d_backward_data_igemm(t, dyl, w, dxs);
  transpose_batched(dxs, s.batch, dx.numel() / (s.batch * s.in_channels), s.in_channels, dx);
  return true;
}

bool OpenCLBackend::conv3d_backward_weights_ncdhw_igemm(const Conv3dShape& s, const Tensor& x,
                                                        const Tensor& dy, Tensor& dw,
                                                        Tensor* dbias) {
  const Conv3dShape t = channels_last(s);
  if (s.layout != Layout3d::ncdhw || !conv3d_backward_implicit_unavailable(t, true).empty())
    return false;
  Tensor xs, dys;
  const Tensor& xl = ncdhw_as_ndhwc(x, s.batch, s.in_channels, xs);
  const Tensor& dyl = ncdhw_as_ndhwc(dy, s.batch, s.out_channels, dys);
  return conv3d_backward_weights_igemm(t, xl, dyl, dw, dbias);
}

}  // namespace sb
