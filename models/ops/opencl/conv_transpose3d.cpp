// PyTorch's ConvTranspose3d and its two backward ops on OpenCL, for kernel == stride and
// padding 0 only (DynUNet's upsampling, k = s = 2): the non-overlapping case, where every output
// voxel receives exactly one contribution per input channel. Other geometries are refused with
// std::invalid_argument "<op>: the OpenCL backend runs kernel == stride, padding 0 only ...".
//
// With V = N d h w input voxels and columns cols [V, out k^3] (kernels/conv_transpose3d.cl):
//   forward          cols = X [V, in] . W [in, out k^3] (CLBlast), then a scatter of each
//                    column into its output voxel, plus bias;
//   backward data    cols = gather(dy), then dX [V, in] = cols . W^T;
//   backward weights cols = gather(dy), then dW = X^T . cols (summed over the batch in order),
//                    its reduction over the voxels split into slices summed in a fixed order
//                    (conv3d_gemm_split_k; STAGEBENCH_CONV_IGEMM=off: unsplit), dbias by a
//                    fixed-order work-group reduction.
// X is [V, in] itself in ndhwc; in ncdhw each sample is [in, voxels], so the GEMMs run per
// sample with the transposes swapped (CLBlast GemmStridedBatched, or Gemm calls accumulating
// with beta = 1 in sample order for dW). No atomics: every result is deterministic.
// Channels-last bf16 calls on NVIDIA take the bf16 implicit GEMMs instead
// (conv_transpose3d_igemm.cpp; STAGEBENCH_CONV_TRANSPOSE_IGEMM=off keeps this path).
#include <clblast.h>

#include <string>

#include "models/ops/opencl/clblast_status.h"
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

void require_non_overlapping(const Conv3dShape& s, const char* op) {
  require(s.kernel == s.stride && s.padding == 0, op,
          "the OpenCL backend runs kernel == stride, padding 0 only (got kernel " +
              std::to_string(s.kernel) + ", stride " + std::to_string(s.stride) + ", padding " +
              std::to_string(s.padding) + ")");
}

// An operand of the GEMMs below: leading dimension, step from one item to the next, transposed.
struct Operand {
  int64_t ld, stride;
  bool trans;
};

// `count` row-major products C_i = A_i op B_i (+ beta C_i), operands at i * stride.
GemmBatch strided(int64_t m, int64_t n, int64_t k, const Operand& a, const Operand& b, float beta,
                  const Operand& c, int64_t count) {
  GemmBatch g;
  g.m = m, g.n = n, g.k = k, g.trans_a = a.trans, g.trans_b = b.trans, g.beta = beta;
  g.lda = a.ld, g.ldb = b.ld, g.ldc = c.ld;
  for (int64_t i = 0; i < count; ++i) {
    g.a_offsets.push_back(i * a.stride);
    g.b_offsets.push_back(i * b.stride);
    g.c_offsets.push_back(i * c.stride);
  }
  return g;
}

}  // namespace

// The run of GEMMs shared by the three ops: one CLBlast Gemm, or one GemmStridedBatched.
void OpenCLBackend::strided_gemm(const GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c) {
  if (portable_gemm_) return gemm_portable(g, a, b, c);
  const auto u = [](int64_t v) { return static_cast<size_t>(v); };
  const size_t count = g.a_offsets.size();
  const auto step = [&](const std::vector<int64_t>& o) { return count > 1 ? u(o[1] - o[0]) : 0; };
  cl_command_queue q = runtime_->queue()();
  if (count == 1) {
    check_clblast(
        clblast::Gemm<float>(clblast::Layout::kRowMajor, clblast_transpose(g.trans_a),
                             clblast_transpose(g.trans_b), u(g.m), u(g.n), u(g.k), 1.0f,
                             device_buffer(a)(), u(g.a_offsets[0]), u(g.lda), device_buffer(b)(),
                             u(g.b_offsets[0]), u(g.ldb), g.beta, device_buffer(c)(),
                             u(g.c_offsets[0]), u(g.ldc), &q, nullptr),
        "Gemm");
    return;
  }
  check_clblast(clblast::GemmStridedBatched<float>(
                    clblast::Layout::kRowMajor, clblast_transpose(g.trans_a),
                    clblast_transpose(g.trans_b), u(g.m), u(g.n), u(g.k), 1.0f, device_buffer(a)(),
                    u(g.a_offsets[0]), u(g.lda), step(g.a_offsets), device_buffer(b)(),
                    u(g.b_offsets[0]), u(g.ldb), step(g.b_offsets), g.beta, device_buffer(c)(),
                    u(g.c_offsets[0]), u(g.ldc), step(g.c_offsets), count, &q, nullptr),
                "GemmStridedBatched");
}

void OpenCLBackend::do_conv_transpose3d(const Conv3dShape& s, const Tensor& x, const Tensor& w,
                                        const Tensor* bias, Tensor& y) {
  require_non_overlapping(s, "conv_transpose3d");
  if (conv_transpose3d_igemm(s, x, w, bias, y)) return;
  const int64_t vox = s.d * s.h * s.w, k3 = int64_t{s.kernel} * s.kernel * s.kernel;
  const int64_t cols_n = s.out_channels * k3;
  Tensor cols = empty({s.batch * vox, cols_n});
  const Operand wop{cols_n, 0, false};
  const Operand cop{cols_n, vox * cols_n, false};
  events_.begin_span();
  if (s.layout == Layout3d::ndhwc)  // cols [V, out k^3] = X [V, in] . W
    strided_gemm(
        strided(s.batch * vox, cols_n, s.in_channels, {s.in_channels, 0, false}, wop, 0.0f, cop, 1),
        x, w, cols);
  else  // per sample: cols_n [vox, out k^3] = (X_n [in, vox])^T . W
    strided_gemm(strided(vox, cols_n, s.in_channels, {vox, s.in_channels * vox, true}, wop, 0.0f,
                         cop, s.batch),
                 x, w, cols);
  events_.end_span("clblast_conv_transpose3d");
  const int64_t total = y.numel();
  launch("convt3d_scatter", cl::NDRange(round_up(total, 256)), cl::NDRange(256), cols, bias,
         bias ? 1 : 0, s.layout == Layout3d::ndhwc ? 1 : 0, s.out_channels, s.d, s.h, s.w, s.kernel,
         total, y);
}

void OpenCLBackend::do_conv_transpose3d_backward_data(const Conv3dShape& s, const Tensor& dy,
                                                      const Tensor& w, Tensor& dx) {
  require_non_overlapping(s, "conv_transpose3d_backward_data");
  if (conv_transpose3d_backward_data_igemm(s, dy, w, dx)) return;
  const int64_t vox = s.d * s.h * s.w, k3 = int64_t{s.kernel} * s.kernel * s.kernel;
  const int64_t cols_n = s.out_channels * k3;
  Tensor cols = empty({s.batch * vox, cols_n});
  const int64_t total = dy.numel();
  launch("convt3d_gather", cl::NDRange(round_up(total, 256)), cl::NDRange(256), dy,
         s.layout == Layout3d::ndhwc ? 1 : 0, s.out_channels, s.d, s.h, s.w, s.kernel, total, cols);
  events_.begin_span();
  if (s.layout == Layout3d::ndhwc)  // dX [V, in] = cols [V, out k^3] . W^T
    strided_gemm(strided(s.batch * vox, s.in_channels, cols_n, {cols_n, 0, false},
                         {cols_n, 0, true}, 0.0f, {s.in_channels, 0, false}, 1),
                 cols, w, dx);
  else  // per sample: dX_n [in, vox] = W [in, out k^3] . cols_n^T
    strided_gemm(
        strided(s.in_channels, vox, cols_n, {cols_n, 0, false}, {cols_n, vox * cols_n, true}, 0.0f,
                {vox, s.in_channels * vox, false}, s.batch),
        w, cols, dx);
  events_.end_span("clblast_conv_transpose3d_backward_data");
}

void OpenCLBackend::do_conv_transpose3d_backward_weights(const Conv3dShape& s, const Tensor& x,
                                                         const Tensor& dy, Tensor& dw,
                                                         Tensor* dbias) {
  require_non_overlapping(s, "conv_transpose3d_backward_weights");
  const int64_t vox = s.d * s.h * s.w, k3 = int64_t{s.kernel} * s.kernel * s.kernel;
  const int channels_last = s.layout == Layout3d::ndhwc ? 1 : 0;
  if (!conv_transpose3d_backward_weights_igemm(s, x, dy, dw))
    conv_transpose3d_weights_clblast(s, x, dy, dw);
  if (dbias == nullptr) return;
  launch("convt3d_bias_grad", cl::NDRange(static_cast<size_t>(s.out_channels) * 64),
         cl::NDRange(64), dy, channels_last, s.out_channels, s.batch, vox * k3, *dbias);
}

void OpenCLBackend::conv_transpose3d_weights_clblast(const Conv3dShape& s, const Tensor& x,
                                                     const Tensor& dy, Tensor& dw) {
  const int64_t vox = s.d * s.h * s.w, k3 = int64_t{s.kernel} * s.kernel * s.kernel;
  const int64_t cols_n = s.out_channels * k3;
  const int channels_last = s.layout == Layout3d::ndhwc ? 1 : 0;
  Tensor cols = empty({s.batch * vox, cols_n});
  const int64_t total = dy.numel();
  launch("convt3d_gather", cl::NDRange(round_up(total, 256)), cl::NDRange(256), dy, channels_last,
         s.out_channels, s.d, s.h, s.w, s.kernel, total, cols);
  if (conv_igemm_knob_ != ConvIgemmKnob::off) {
    // dW is [in, out k^3] (a few thousand outputs) reduced over every input voxel: one GEMM (or
    // one a sample) leaves most of a GPU idle, 15-18 ms of DynUNet full's 60.5 ms channels-last
    // step on an H100 (results/h100/conv-bwd-2026-11-28/call2/). conv3d_gemm_split_k splits the
    // reduction into slices summed in a fixed order (conv3d.cpp), in f32 as before.
    // STAGEBENCH_CONV_IGEMM=off keeps the unsplit GEMMs below.
    if (channels_last) {  // X [V, in]: one voxel of k is one row of X and of cols
      conv3d_gemm_split_k(Precision::f32, true, false, s.in_channels, cols_n, s.batch * vox, x, 0,
                          s.in_channels, s.in_channels, cols, 0, cols_n, cols_n, 0.0f, dw);
    } else {  // X_n [in, vox]: one voxel of k is one column of X_n, one row of cols_n
      for (int64_t n = 0; n < s.batch; ++n)
        conv3d_gemm_split_k(Precision::f32, false, false, s.in_channels, cols_n, vox, x,
                            n * s.in_channels * vox, vox, 1, cols, n * vox * cols_n, cols_n, cols_n,
                            n == 0 ? 0.0f : 1.0f, dw);
    }
  } else {
    events_.begin_span();
    if (channels_last) {  // dW [in, out k^3] = X^T [in, V] . cols [V, out k^3]
      strided_gemm(strided(s.in_channels, cols_n, s.batch * vox, {s.in_channels, 0, true},
                           {cols_n, 0, false}, 0.0f, {cols_n, 0, false}, 1),
                   x, cols, dw);
    } else {  // dW = sum_n X_n [in, vox] . cols_n [vox, out k^3], accumulated in sample order
      for (int64_t n = 0; n < s.batch; ++n) {
        GemmBatch g = strided(s.in_channels, cols_n, vox, {vox, 0, false}, {cols_n, 0, false},
                              n == 0 ? 0.0f : 1.0f, {cols_n, 0, false}, 1);
        g.a_offsets = {n * s.in_channels * vox}, g.b_offsets = {n * vox * cols_n};
        strided_gemm(g, x, cols, dw);
      }
    }
    events_.end_span("clblast_conv_transpose3d_backward_weights");
  }
}

}  // namespace sb
