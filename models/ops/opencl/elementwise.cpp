// Elementwise ops and data movement (kernels/elementwise.cl).
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

constexpr size_t kGroup = 256;

void require_same_size(const char* op, const Tensor& a, const Tensor& b) {
  require(a.numel() == b.numel(), op,
          "sizes differ: " + a.shape_string() + " vs " + b.shape_string());
}

}  // namespace

void OpenCLBackend::affine_channels(const Tensor& x, const Tensor* scale, const Tensor* shift,
                                    Tensor& y) {
  require_same_size("affine_channels", x, y);
  const int64_t channels = x.dim(-1);
  require(!scale || scale->numel() == channels, "affine_channels", "scale is not [C]");
  require(!shift || shift->numel() == channels, "affine_channels", "shift is not [C]");
  const int64_t n = x.numel();
  if (n == 0) return;
  launch("affine_channels", cl::NDRange(round_up(n, kGroup)), cl::NDRange(kGroup), x, scale,
         scale ? 1 : 0, shift, shift ? 1 : 0, channels, n, y);
}

void OpenCLBackend::sigmoid_scaled(const Tensor& x, float alpha, Tensor& y) {
  require_same_size("sigmoid_scaled", x, y);
  const int64_t n = x.numel();
  if (n == 0) return;
  launch("sigmoid_scaled", cl::NDRange(round_up(n, kGroup)), cl::NDRange(kGroup), x, alpha, n, y);
}

void OpenCLBackend::mul(const Tensor& a, const Tensor& b, Tensor& y) {
  require_same_size("mul", a, b);
  require_same_size("mul", a, y);
  const int64_t n = a.numel();
  if (n == 0) return;
  launch("mul_elements", cl::NDRange(round_up(n, kGroup)), cl::NDRange(kGroup), a, b, n, y);
}

void OpenCLBackend::add(const Tensor& a, const Tensor& b, Tensor& y) {
  require_same_size("add", a, b);
  require_same_size("add", a, y);
  const int64_t n = a.numel();
  if (n == 0) return;
  launch("add_elements", cl::NDRange(round_up(n, kGroup)), cl::NDRange(kGroup), a, b, n, y);
}

void OpenCLBackend::activation(const Tensor& x, Act act, Tensor& y) {
  require_same_size("activation", x, y);
  const int64_t n = x.numel();
  if (n == 0) return;
  launch("activation", cl::NDRange(round_up(n, kGroup)), cl::NDRange(kGroup), x,
         static_cast<int>(act), n, y);
}

void OpenCLBackend::im2col(const Tensor& x, int k, Tensor& cols, const InputTransform& t) {
  require(x.rank() == 3, "im2col", "input " + x.shape_string() + " is not [B, L, C]");
  require(k > 0, "im2col", "kernel width must be positive");
  const int64_t batch = x.dim(0), length = x.dim(1), channels = x.dim(2);
  require(cols.numel() == batch * length * k * channels, "im2col",
          "cols " + cols.shape_string() + " is not [B*L, k*C]");
  require(!t.scale || t.scale->numel() == channels, "im2col", "transform scale is not [C]");
  require(!t.shift || t.shift->numel() == channels, "im2col", "transform shift is not [C]");
  require(x.storage() != cols.storage(), "im2col", "cols must not alias the input");
  const int64_t n = cols.numel();
  if (n == 0) return;
  launch("im2col", cl::NDRange(round_up(n, kGroup)), cl::NDRange(kGroup), x, length, channels, k,
         t.scale, t.scale ? 1 : 0, t.shift, t.shift ? 1 : 0, static_cast<int>(t.act), n, cols);
}

void OpenCLBackend::copy_rows(const Tensor& x, int64_t start, Tensor& y) {
  require(x.rank() == 3 && y.rank() == 3, "copy_rows", "tensors are not [B, L, C]");
  require(x.dim(0) == y.dim(0) && x.dim(2) == y.dim(2), "copy_rows",
          "shapes differ: " + x.shape_string() + " vs " + y.shape_string());
  require(start >= 0 && start + y.dim(1) <= x.dim(1), "copy_rows",
          "rows [" + std::to_string(start) + ", " + std::to_string(start + y.dim(1)) +
              ") lie outside " + x.shape_string());
  require(x.storage() != y.storage(), "copy_rows", "output must not alias the input");
  const int64_t n = y.numel();
  if (n == 0) return;
  launch("copy_rows", cl::NDRange(round_up(n, kGroup)), cl::NDRange(kGroup), x, x.dim(1), start,
         y.dim(1), y.dim(2), n, y);
}

}  // namespace sb
