// Enformer's attention pooling in one pass (kernels/attention_pool.cl).
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

void OpenCLBackend::do_attention_pool(const Tensor& x, const Tensor& logits, Tensor& y) {
  const int64_t n = y.numel();
  const int half_x = x.dtype() == DType::f16 ? 1 : 0;  // written so by its producer (issue 27)
  launch("attention_pool_fused", cl::NDRange(round_up(n, 256)), cl::NDRange(256), x, logits,
         x.dim(1), y.dim(1), x.dim(2), n, y, half_x);
}

}  // namespace sb
