// The k = s = 2, padding 0 transposed convolution (DynUNet's upsampling) on the bf16 implicit
// GEMMs of conv3d (issue 27), for channels-last bf16 calls on devices with the mma.sync kernels;
// STAGEBENCH_CONV_TRANSPOSE_IGEMM=off (and every other call) keeps conv_transpose3d.cpp's fp32
// CLBlast GEMMs with their column gather and scatter passes. No new GEMM: with V the input
// voxels, each input voxel feeds exactly its 8 children, so
//   forward          Y_cols [V, 8 Co] = X [V, Ci] . W' [Ci, (parity, co)] is a 1^3 convolution
//                    whose epilogue stores column (parity, co) of row v straight onto child
//                    2 v + parity of y, adding bias[co] (conv3d_phase_store with origin 0, the
//                    phase-store GEMMs of conv3d_igemm.cpp; the weight permuted to bf16 rows by
//                    convt3d_weight_rows_bf16);
//   backward data    dx = the k2 s2 padding-0 convolution of dy with w itself ([Ci, Co, 2, 2, 2]
//                    is conv3d's [out, in, k, k, k]): conv3d_igemm, its A tile gathering the 8
//                    children of a voxel by the convolution's own addressing;
//   backward weights dw = that convolution's weight gradient with x as its dy and dy as its
//                    input (dw[ci, co, t] = sum_v x[v, ci] dy[2 v + t, co]): conv3d's split
//                    reduction over the voxels, slots summed in a fixed order (conv3d_dw_sum),
//                    the same bits every run; dbias stays convt3d_bias_grad (fixed order).
// Inputs reach the GEMMs as bf16 copies (bf16_copy: a held tensor's kept copy, else converted).
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

// The convolution whose data gradient / weight gradient the transposed one's forward / weight
// gradient is, and whose forward is its data gradient: in Co channels at y's size, out Ci.
Conv3dShape as_convolution(const Conv3dShape& s) {
  Conv3dShape c = s;
  c.in_channels = s.out_channels, c.out_channels = s.in_channels;
  c.d = s.out_size(s.d, true), c.h = s.out_size(s.h, true), c.w = s.out_size(s.w, true);
  return c;
}

// The forward GEMM's shape: a 1^3 convolution of x into 8 Co columns, one row an input voxel.
Conv3dShape forward_gemm(const Conv3dShape& s) {
  Conv3dShape u = s;
  u.out_channels = 8 * s.out_channels;
  u.kernel = 1, u.stride = 1, u.padding = 0;
  return u;
}

}  // namespace

std::string OpenCLBackend::conv_transpose3d_igemm_unavailable(const Conv3dShape& s) const {
  if (!conv_transpose_igemm_) return "STAGEBENCH_CONV_TRANSPOSE_IGEMM=off";
  if (s.precision != Precision::bf16) return "not bf16";
  if (s.layout != Layout3d::ndhwc) return "not channels-last";
  if (s.kernel != 2 || s.stride != 2 || s.padding != 0) return "not k2 s2 p0";
  // The phase store writes a quad of 4 channels of one child voxel, on 64-wide tiles only.
  if (s.out_channels % 8 != 0) return "output channels not a multiple of 8";
  const Conv3dShape c = as_convolution(s);
  if (c.batch * c.d * c.h * c.w * c.in_channels >= (int64_t{1} << 31))
    return "output over 2^31 elements";
  if (std::string why = conv3d_implicit_unavailable(forward_gemm(s)); !why.empty()) return why;
  return conv3d_implicit_unavailable(c);  // the data gradient's convolution of dy
}

bool OpenCLBackend::conv_transpose3d_igemm(const Conv3dShape& s, const Tensor& x, const Tensor& w,
                                           const Tensor* bias, Tensor& y) {
  if (!conv_transpose3d_igemm_unavailable(s).empty()) return false;
  const Conv3dShape u = forward_gemm(s);
  const int64_t n = u.out_channels * s.in_channels;
  Tensor wt = do_empty({u.out_channels, s.in_channels}, DType::f16);  // bf16 bits
  cl::Kernel& rows = conv_igemm_kernel("convt3d_weight_rows_bf16");
  set_args(rows, 0, w, to_cl_int(s.out_channels, "out"), to_cl_int(s.in_channels, "in"),
           to_cl_int(n, "weight size"), wt);
  faults_.before_launch("convt3d_weight_rows_bf16");
  events_.launch("convt3d_weight_rows_bf16", rows, cl::NDRange(round_up(n, 256)), cl::NDRange(256));
  const int64_t store[] = {2 * s.d, 2 * s.h, 2 * s.w, 0};  // children from plane 0
  conv3d_igemm_permuted(u, x, wt, bias, y, "conv-transpose3d-igemm", nullptr, store);
  return true;
}

bool OpenCLBackend::conv_transpose3d_backward_data_igemm(const Conv3dShape& s, const Tensor& dy,
                                                         const Tensor& w, Tensor& dx) {
  if (!conv_transpose3d_igemm_unavailable(s).empty()) return false;
  conv3d_igemm(as_convolution(s), dy, w, nullptr, dx);
  return true;
}

bool OpenCLBackend::conv_transpose3d_backward_weights_igemm(const Conv3dShape& s, const Tensor& x,
                                                            const Tensor& dy, Tensor& dw) {
  if (!conv_transpose3d_igemm_unavailable(s).empty()) return false;
  return conv3d_backward_weights_igemm(as_convolution(s), dy, x, dw, nullptr);
}

}  // namespace sb
