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
//                    dbias by a fixed-order work-group reduction.
// X is [V, in] itself in ndhwc; in ncdhw each sample is [in, voxels], so the GEMMs run per
// sample with the transposes swapped (CLBlast GemmStridedBatched, or Gemm calls accumulating
// with beta = 1 in sample order for dW). No atomics: every result is deterministic.
#include <clblast.h>

#include <string>

#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

void require_non_overlapping(const Conv3dShape& s, const char* op) {
  require(s.kernel == s.stride && s.padding == 0, op,
          "the OpenCL backend runs kernel == stride, padding 0 only (got kernel " +
              std::to_string(s.kernel) + ", stride " + std::to_string(s.stride) + ", padding " +
              std::to_string(s.padding) + ")");
}

void check(clblast::StatusCode status, const char* routine) {
  if (status != clblast::StatusCode::kSuccess)
    throw std::runtime_error(std::string("CLBlast ") + routine + " failed with status " +
                             std::to_string(static_cast<int>(status)));
}

// One row-major GEMM per item i < count: C_i = A_i op B_i (+ beta C_i), operands at
// offset + i * stride.
struct Operand {
  const cl::Buffer* buffer;
  size_t ld, stride;
  bool trans;
};

clblast::Transpose op(bool t) {
  return t ? clblast::Transpose::kYes : clblast::Transpose::kNo;
}

// The run of GEMMs shared by the three ops.
void strided_gemm(cl_command_queue queue, size_t m, size_t n, size_t k, const Operand& a,
                  const Operand& b, float beta, const Operand& c, size_t count) {
  cl_command_queue q = queue;
  if (count == 1) {
    check(clblast::Gemm<float>(clblast::Layout::kRowMajor, op(a.trans), op(b.trans), m, n, k, 1.0f,
                               (*a.buffer)(), 0, a.ld, (*b.buffer)(), 0, b.ld, beta, (*c.buffer)(),
                               0, c.ld, &q, nullptr),
          "Gemm");
    return;
  }
  check(clblast::GemmStridedBatched<float>(clblast::Layout::kRowMajor, op(a.trans), op(b.trans), m,
                                           n, k, 1.0f, (*a.buffer)(), 0, a.ld, a.stride,
                                           (*b.buffer)(), 0, b.ld, b.stride, beta, (*c.buffer)(), 0,
                                           c.ld, c.stride, count, &q, nullptr),
        "GemmStridedBatched");
}

}  // namespace

void OpenCLBackend::do_conv_transpose3d(const Conv3dShape& s, const Tensor& x, const Tensor& w,
                                        const Tensor* bias, Tensor& y) {
  require_non_overlapping(s, "conv_transpose3d");
  const int64_t vox = s.d * s.h * s.w, k3 = int64_t{s.kernel} * s.kernel * s.kernel;
  const int64_t cols_n = s.out_channels * k3;
  Tensor cols = empty({s.batch * vox, cols_n});
  const auto u = [](int64_t v) { return static_cast<size_t>(v); };
  const Operand wop{&device_buffer(w), u(cols_n), 0, false};
  const Operand cop{&device_buffer(cols), u(cols_n), u(vox * cols_n), false};
  events_.begin_span();
  if (s.layout == Layout3d::ndhwc)  // cols [V, out k^3] = X [V, in] . W
    strided_gemm(runtime_->queue()(), u(s.batch * vox), u(cols_n), u(s.in_channels),
                 {&device_buffer(x), u(s.in_channels), 0, false}, wop, 0.0f, cop, 1);
  else  // per sample: cols_n [vox, out k^3] = (X_n [in, vox])^T . W
    strided_gemm(runtime_->queue()(), u(vox), u(cols_n), u(s.in_channels),
                 {&device_buffer(x), u(vox), u(s.in_channels * vox), true}, wop, 0.0f, cop,
                 u(s.batch));
  events_.end_span("clblast_conv_transpose3d");
  const int64_t total = y.numel();
  launch("convt3d_scatter", cl::NDRange(round_up(total, 256)), cl::NDRange(256), cols, bias,
         bias ? 1 : 0, s.layout == Layout3d::ndhwc ? 1 : 0, s.out_channels, s.d, s.h, s.w, s.kernel,
         total, y);
}

void OpenCLBackend::do_conv_transpose3d_backward_data(const Conv3dShape& s, const Tensor& dy,
                                                      const Tensor& w, Tensor& dx) {
  require_non_overlapping(s, "conv_transpose3d_backward_data");
  const int64_t vox = s.d * s.h * s.w, k3 = int64_t{s.kernel} * s.kernel * s.kernel;
  const int64_t cols_n = s.out_channels * k3;
  Tensor cols = empty({s.batch * vox, cols_n});
  const int64_t total = dy.numel();
  launch("convt3d_gather", cl::NDRange(round_up(total, 256)), cl::NDRange(256), dy,
         s.layout == Layout3d::ndhwc ? 1 : 0, s.out_channels, s.d, s.h, s.w, s.kernel, total, cols);
  const auto u = [](int64_t v) { return static_cast<size_t>(v); };
  events_.begin_span();
  if (s.layout == Layout3d::ndhwc)  // dX [V, in] = cols [V, out k^3] . W^T
    strided_gemm(runtime_->queue()(), u(s.batch * vox), u(s.in_channels), u(cols_n),
                 {&device_buffer(cols), u(cols_n), 0, false},
                 {&device_buffer(w), u(cols_n), 0, true}, 0.0f,
                 {&device_buffer(dx), u(s.in_channels), 0, false}, 1);
  else  // per sample: dX_n [in, vox] = W [in, out k^3] . cols_n^T
    strided_gemm(runtime_->queue()(), u(s.in_channels), u(vox), u(cols_n),
                 {&device_buffer(w), u(cols_n), 0, false},
                 {&device_buffer(cols), u(cols_n), u(vox * cols_n), true}, 0.0f,
                 {&device_buffer(dx), u(vox), u(s.in_channels * vox), false}, u(s.batch));
  events_.end_span("clblast_conv_transpose3d_backward_data");
}

void OpenCLBackend::do_conv_transpose3d_backward_weights(const Conv3dShape& s, const Tensor& x,
                                                         const Tensor& dy, Tensor& dw,
                                                         Tensor* dbias) {
  require_non_overlapping(s, "conv_transpose3d_backward_weights");
  const int64_t vox = s.d * s.h * s.w, k3 = int64_t{s.kernel} * s.kernel * s.kernel;
  const int64_t cols_n = s.out_channels * k3;
  const int channels_last = s.layout == Layout3d::ndhwc ? 1 : 0;
  Tensor cols = empty({s.batch * vox, cols_n});
  const int64_t total = dy.numel();
  launch("convt3d_gather", cl::NDRange(round_up(total, 256)), cl::NDRange(256), dy, channels_last,
         s.out_channels, s.d, s.h, s.w, s.kernel, total, cols);
  const auto u = [](int64_t v) { return static_cast<size_t>(v); };
  cl_command_queue queue = runtime_->queue()();
  events_.begin_span();
  if (channels_last) {  // dW [in, out k^3] = X^T [in, V] . cols [V, out k^3]
    strided_gemm(queue, u(s.in_channels), u(cols_n), u(s.batch * vox),
                 {&device_buffer(x), u(s.in_channels), 0, true},
                 {&device_buffer(cols), u(cols_n), 0, false}, 0.0f,
                 {&device_buffer(dw), u(cols_n), 0, false}, 1);
  } else {  // dW = sum_n X_n [in, vox] . cols_n [vox, out k^3], accumulated in sample order
    for (int64_t n = 0; n < s.batch; ++n)
      check(clblast::Gemm<float>(clblast::Layout::kRowMajor, clblast::Transpose::kNo,
                                 clblast::Transpose::kNo, u(s.in_channels), u(cols_n), u(vox), 1.0f,
                                 device_buffer(x)(), u(n * s.in_channels * vox), u(vox),
                                 device_buffer(cols)(), u(n * vox * cols_n), u(cols_n),
                                 n == 0 ? 0.0f : 1.0f, device_buffer(dw)(), 0, u(cols_n), &queue,
                                 nullptr),
            "Gemm");
  }
  events_.end_span("clblast_conv_transpose3d_backward_weights");
  if (dbias == nullptr) return;
  launch("convt3d_bias_grad", cl::NDRange(u(s.out_channels) * 64), cl::NDRange(64), dy,
         channels_last, s.out_channels, s.batch, vox * k3, *dbias);
}

}  // namespace sb
