// Enformer's attention pooling in one pass (kernels/attention_pool.cl).

#include "models/ops/knobs.h"
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

bool pool_vec8_requested() {
  return read_on_off_knob("STAGEBENCH_POOL_VEC8");
}

void OpenCLBackend::do_attention_pool(const Tensor& x, const Tensor& logits, Tensor& y,
                                      const InputTransform& t) {
  const int64_t n = y.numel(), channels = x.dim(2);
  // x and y in f16 where the stage keeps them so (issue 27); logits fp32.
  const int halves =
      (x.dtype() == DType::f16 ? ACT_HALF_X : 0) | (y.dtype() == DType::f16 ? ACT_HALF_Y : 0);
  const bool vec8 = channels % 8 == 0 && pool_vec8_;
  const int64_t items = vec8 ? n / 8 : n;
  launch(vec8 ? "attention_pool_vec8" : "attention_pool_fused", cl::NDRange(round_up(items, 256)),
         cl::NDRange(256), x, logits, x.dim(1), y.dim(1), channels, items, y, halves, t.scale,
         t.scale ? 1 : 0, t.shift, t.shift ? 1 : 0, static_cast<int>(t.act));
}

}  // namespace sb
