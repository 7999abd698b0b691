// Enformer's attention pooling in one pass: each pair's softmax weights stay in registers.
#include "models/ops/cpu/activation.h"
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/op_times.h"
#include "models/ops/cpu/parallel.h"

namespace sb::cpu {

namespace {

// Softmax over the pair (a0, a1), per channel: w0 = 1 / (1 + e^(a1-a0)), w1 likewise. Exact
// and overflow-safe (a huge exponent gives weight 0), each weight to full relative precision.
template <class A>
auto pair_weight(const A& mine, const A& other) {
  return (1.0f + (other - mine).exp()).inverse();
}

}  // namespace

void CpuBackend::do_attention_pool(const Tensor& x, const Tensor& logits, Tensor& y,
                                   const InputTransform& t) {
  const OpScope op_scope(op_log(), [&] { return "attention_pool " + std::to_string(x.numel()); });
  const int64_t batch = x.dim(0), len = x.dim(1), c = x.dim(2), pairs = len / 2;
  const float* xp = f32_data(x, "attention_pool input");
  const float* lp = f32_data(logits, "attention_pool logits");
  float* yp = f32_data(y, "attention_pool output");
  const float* scale = t.scale != nullptr ? f32_data(*t.scale, "attention_pool scale") : nullptr;
  const float* shift = t.shift != nullptr ? f32_data(*t.shift, "attention_pool shift") : nullptr;
  const bool transformed = scale != nullptr || shift != nullptr || t.act != Act::none;
  parallel_for(batch * pairs, 20 * c, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t o = 2 * p * c;  // pair p's first position (len is even)
      ConstArrayMap a0(lp + o, c), a1(lp + o + c, c);
      ArrayMap(yp + p * c, c) = ConstArrayMap(xp + o, c) * pair_weight(a0, a1) +
                                ConstArrayMap(xp + o + c, c) * pair_weight(a1, a0);
      if (transformed) affine_act(yp + p * c, scale, shift, t.act, yp + p * c, c);
    }
  });
}

}  // namespace sb::cpu
