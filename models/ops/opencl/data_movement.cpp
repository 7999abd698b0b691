// Data movement (kernels/data_movement.cl): im2col, row-range copies, dtype conversion, the
// embedding gather.
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

constexpr size_t kMoveGroup = 256;

}  // namespace

void OpenCLBackend::do_im2col(const Tensor& x, int k, Tensor& cols, const InputTransform& t) {
  const int64_t n = cols.numel();
  launch("im2col", quads(n), cl::NDRange(kMoveGroup), x, x.dim(1), x.dim(2), k, t.scale,
         t.scale ? 1 : 0, t.shift, t.shift ? 1 : 0, static_cast<int>(t.act), n, cols);
}

void OpenCLBackend::do_copy_rows(const Tensor& x, int64_t start, Tensor& y) {
  const int64_t n = y.numel();
  launch("copy_rows", cl::NDRange(round_up(n, kMoveGroup)), cl::NDRange(kMoveGroup), x, x.dim(1),
         start, y.dim(1), y.dim(2), n, y);
}

void OpenCLBackend::do_convert(const Tensor& x, Tensor& y) {
  const int64_t n = y.numel();
  const int halves =
      (x.dtype() == DType::f16 ? ACT_HALF_X : 0) | (y.dtype() == DType::f16 ? ACT_HALF_Y : 0);
  launch("convert_act", quads(n), cl::NDRange(kMoveGroup), x, n, y, halves);
}

void OpenCLBackend::do_embedding(const Tensor& table, const Tensor& ids, const Tensor* rows,
                                 Tensor& y) {
  const int64_t n = y.numel();
  const Tensor* copy = f16_copy_to_write(y);  // DeepFM's first product reads it (dfm35)
  launch("embedding_gather", cl::NDRange(round_up(n, kMoveGroup)), cl::NDRange(kMoveGroup), table,
         table.dim(0), ids, rows, rows ? 1 : 0, ids.dim(1), table.dim(1), n, y, copy, copy ? 1 : 0);
}

}  // namespace sb
