// Enformer's attention pooling in one pass (kernels/attention_pool.cl).
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

void OpenCLBackend::do_attention_pool(const Tensor& x, const Tensor& logits, Tensor& y) {
  const int64_t n = y.numel();
  // x and y in f16 where the stage keeps them so (issue 27); logits fp32.
  const int halves =
      (x.dtype() == DType::f16 ? ACT_HALF_X : 0) | (y.dtype() == DType::f16 ? ACT_HALF_Y : 0);
  launch("attention_pool_fused", cl::NDRange(round_up(n, 256)), cl::NDRange(256), x, logits,
         x.dim(1), y.dim(1), x.dim(2), n, y, halves);
}

}  // namespace sb
