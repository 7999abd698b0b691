// Elementwise ops (kernels/elementwise.cl): an item per element, or per four (quads()).
#include "models/ops/dropout_hash.h"
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

constexpr size_t kQuadGroup = 256;  // must match quads()

}  // namespace

cl::NDRange quads(int64_t n) {
  return cl::NDRange(round_up((n + 3) / 4, kQuadGroup));
}

void OpenCLBackend::do_affine_channels(const Tensor& x, const Tensor* scale, const Tensor* shift,
                                       Tensor& y) {
  const int64_t n = x.numel();
  launch("affine_channels", quads(n), cl::NDRange(kQuadGroup), x, scale, scale ? 1 : 0, shift,
         shift ? 1 : 0, x.dim(-1), n, y);
}

void OpenCLBackend::do_sigmoid_scaled(const Tensor& x, float alpha, Tensor& y) {
  const int64_t n = x.numel();
  launch("sigmoid_scaled", quads(n), cl::NDRange(kQuadGroup), x, alpha, n, y);
}

void OpenCLBackend::do_mul(const Tensor& a, const Tensor& b, Tensor& y) {
  const int64_t n = a.numel();
  launch("mul_elements", quads(n), cl::NDRange(kQuadGroup), a, b, n, y);
}

void OpenCLBackend::do_add(const Tensor& a, const Tensor& b, Tensor& y) {
  const int64_t n = a.numel();
  launch("add_elements", quads(n), cl::NDRange(kQuadGroup), a, b, n, y);
}

void OpenCLBackend::do_activation(const Tensor& x, Act act, Tensor& y) {
  const int64_t n = x.numel();
  launch("activation", quads(n), cl::NDRange(kQuadGroup), x, static_cast<int>(act), n, y);
}

void OpenCLBackend::do_dropout(const Tensor& x, const DropoutKey& key, Tensor& y) {
  // The call's key, the keep threshold and the scale once on the host (dropout_hash.h).
  const uint32_t k = dropout_key32(key), threshold = dropout_threshold(key.p);
  const float scale = dropout_scale(key.p);
  const int64_t n = x.numel();
  launch("dropout", cl::NDRange(round_up(n, kQuadGroup)), cl::NDRange(kQuadGroup), x, k, threshold,
         scale, n, y);
}

// One launch for the two passes (core_ops.h): DeepFM issues three of each a step, each pass 4-7
// us of device time whatever its size (results/h200/dfm33-2026-11-29/timeline-split.*).
void OpenCLBackend::do_activation_dropout(const Tensor& x, Act act, const DropoutKey& key,
                                          Tensor& y) {
  const uint32_t k = dropout_key32(key), threshold = dropout_threshold(key.p);
  const int64_t n = x.numel();
  const Tensor* copy = f16_copy_to_write(y);  // DeepFM's FFN and deep inputs (dfm35)
  launch("activation_dropout", cl::NDRange(round_up(n, kQuadGroup)), cl::NDRange(kQuadGroup), x,
         static_cast<int>(act), k, threshold, dropout_scale(key.p), n, y, copy, copy ? 1 : 0);
}

void OpenCLBackend::do_dropout_activation_backward(const Tensor& x, const Tensor& dy, Act act,
                                                   const DropoutKey& key, Tensor& dx) {
  const uint32_t k = dropout_key32(key), threshold = dropout_threshold(key.p);
  const int64_t n = x.numel();
  launch("dropout_activation_backward", cl::NDRange(round_up(n, kQuadGroup)),
         cl::NDRange(kQuadGroup), x, dy, static_cast<int>(act), k, threshold, dropout_scale(key.p),
         n, dx);
}

}  // namespace sb
