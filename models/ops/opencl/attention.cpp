// What the separate-pass attentions add to their logits between the GEMMs
// (kernels/attention.cl): the key-padding bias and the relative-position term.
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

void OpenCLBackend::do_add_key_bias(Tensor& logits, const Tensor& key_bias, int64_t heads) {
  const int64_t total = logits.numel();
  launch("add_key_bias", quads(total), cl::NDRange(256), logits, key_bias, heads, logits.dim(1),
         total);
}

void OpenCLBackend::do_rel_shift_add(Tensor& logits, const Tensor& rel) {
  const int64_t total = logits.numel();
  launch("rel_shift_add", cl::NDRange(round_up(total, 256)), cl::NDRange(256), logits, rel,
         logits.dim(1), total);
}

}  // namespace sb
