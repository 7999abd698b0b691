// The bf16 copies that producers write beside their fp32 outputs (issue 27): DynUNet's bf16
// convolutions read bf16 copies of their inputs and of the gradients they take (bf16_copy,
// conv3d_igemm.cpp), and a separate f32_to_bf16 pass over each (42 calls, 0.69 ms of a 16.6 ms
// step in results/h200/dyn28-2026-11-28) read 4 bytes and wrote 2 an element. A notice
// (Backend::will_hold_read_only) names the tensor before its last write; the instance norm or
// axis-1 concat that writes it then writes the copy too (kernels/instance_norm.cl, columns.cl),
// and the hold keeps it.
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

void OpenCLBackend::will_hold_read_only(const Tensor& t, Precision read_as) {
  if (read_as != Precision::bf16 || !t.defined() || conv_bf16_reuse_knob_ == ConvBf16ReuseKnob::off)
    return;
  // Only where bf16 convolutions read copies (elsewhere, PoCL, they read fp32) and the knob is on;
  // anywhere (the Oclgrind pass, tests) writes them on every device.
  if (!bf16_copies_anywhere_ && (bf16_producers_ == Bf16ProducersKnob::off || !has_mma() ||
                                 conv_igemm_knob_ == ConvIgemmKnob::off))
    return;
  noticed_[t.storage()] = Noticed{t, Tensor()};
}

Tensor* OpenCLBackend::bf16_copy_to_write(const Tensor& y) {
  const auto it = noticed_.empty() ? noticed_.end() : noticed_.find(y.storage());
  if (it == noticed_.end() || it->second.target.numel() != y.numel()) return nullptr;
  it->second.bf16 = do_empty({y.numel()}, DType::f16);  // bf16 bits in an f16 buffer
  return &it->second.bf16;
}

Tensor OpenCLBackend::held_bf16(const Tensor& t) const {
  const auto it = t.defined() ? held_.find(t.storage()) : held_.end();
  return it == held_.end() ? Tensor() : it->second.bf16;
}

}  // namespace sb
