// The bf16 copies that producers write beside their fp32 outputs (issue 27): DynUNet's bf16
// convolutions read bf16 copies of their inputs and of the gradients they take (bf16_copy,
// conv3d_igemm.cpp), and a separate f32_to_bf16 pass over each (42 calls, 0.69 ms of a 16.6 ms
// step in results/h200/dyn28-2026-11-28) read 4 bytes and wrote 2 an element. A notice
// (Backend::will_hold_read_only) names the tensor before its last write; the instance norm or
// axis-1 concat that writes it then writes the copy too (kernels/instance_norm.cl, columns.cl),
// and the hold keeps it.
#include <iterator>

#include "models/ops/knobs.h"
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

void OpenCLBackend::will_hold_read_only(const Tensor& t, Precision read_as) {
  if (read_as == Precision::f16) {
    notice_f16_image(t);  // (below)
    notice_f16_copy(t);   // an activation's (f16_activations.cpp)
    return;
  }
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

// The f16 images of held parameters (opencl_backend_impl.h's block): DeepFM's f16 products
// packed each weight into f16 at every step, forward and backward (pack_f16_pair: 21 calls,
// 0.227 ms of a 1.176 ms step in results/h200/lead31-2026-11-28/bias/timeline-new-kernels.txt),
// though AdamW is the weights' only writer. The optimizer's kernel writes the image as it writes
// the fp32 value: an f16 buffer the byte size of the flat fp32 one, each range at its fp32 byte
// offset (2 halves an element), so a range starting at part_alignment() is a valid sub-buffer.

bool OpenCLBackend::f16_images_requested() {
  return read_on_off_knob("STAGEBENCH_F16_IMAGES");
}

bool OpenCLBackend::f16_images_on() const {
  return !f16_images_off_ && (f16_images_anywhere_ || has_mma());
}

void OpenCLBackend::notice_f16_image(const Tensor& t) {
  if (!t.defined() || !f16_images_on()) return;
  // Images of flat tensors that nothing holds now and that this notice does not name are dropped
  // (their storage freed with them): a trainer's flat parameters outlive no trainer here.
  for (auto it = f16_images_.begin(); it != f16_images_.end();)
    it = it->first != t.storage() && !held_.contains(it->first) ? f16_images_.erase(it)
                                                                : std::next(it);
  f16_noticed_[t.storage()] = t;
}

OpenCLBackend::F16Image* OpenCLBackend::f16_image_to_write(const Tensor& param) {
  const auto it = f16_images_.find(param.storage());
  const auto n = f16_noticed_.find(param.storage());
  if (n == f16_noticed_.end()) {
    if (it != f16_images_.end()) it->second.written.clear();  // an unnoticed write: stale now
    return nullptr;
  }
  f16_noticed_.erase(n);
  F16Image& e = f16_images_[param.storage()];
  e.source = param;
  e.written.clear();
  if (e.wanted.empty()) return nullptr;  // no product has read a range yet: a plain step
  if (!e.image.defined()) e.image = do_empty({2 * param.numel()}, DType::f16);
  if (e.starts_stale) {
    const int64_t align = part_alignment();
    std::vector<int32_t> starts(static_cast<size_t>((param.numel() + align - 1) / align), -1);
    for (const auto& [start, count] : e.wanted)
      for (int64_t b = start / align; b <= (start + count - 1) / align; ++b)
        starts[static_cast<size_t>(b)] = to_cl_int(start, "f16 image range");
    e.starts = upload_bytes(starts.data(), starts.size() * sizeof(int32_t),
                            {static_cast<int64_t>(starts.size())}, DType::i32);
    e.starts_stale = false;
  }
  e.written = e.wanted;
  return &e;
}

Tensor OpenCLBackend::held_f16_image(const Tensor& t, int64_t offset, int64_t count) {
  if (f16_images_.empty() || !t.defined() || count <= 0) return Tensor();
  const auto& cs = t.storage_as<ClStorage>();
  const Storage* flat = cs.owner ? cs.owner.get() : t.storage();
  const auto it = f16_images_.find(flat);
  if (it == f16_images_.end()) return Tensor();
  F16Image& e = it->second;
  const int64_t start =
      offset +
      (cs.owner ? static_cast<int64_t>(cs.buffer.getInfo<CL_MEM_OFFSET>() / sizeof(float)) : 0);
  if (start % part_alignment() != 0 || start + count > e.source.numel()) return Tensor();
  const auto w = e.written.find(start);
  if (w != e.written.end() && w->second == count && held_.contains(flat)) {
    Tensor& view = e.views[start];
    if (!view.defined() || view.numel() != count) {
      // Halves from 2 * start: the range's fp32 byte offset, which sub-buffers accept.
      cl_buffer_region region{static_cast<size_t>(start) * sizeof(float),
                              static_cast<size_t>(count) * 2};
      cl::Buffer whole = device_buffer(e.image);
      cl::Buffer sub =
          whole.createSubBuffer(CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &region);
      auto owner = std::shared_ptr<Storage>(e.image.storage(), [keep = e.image](Storage*) {});
      view = Tensor({count}, DType::f16,
                    std::make_shared<ClStorage>(std::move(owner), std::move(sub), region.size));
    }
    return view;
  }
  // Not written by the last step: wanted from the next one, unless it overlaps another range.
  const auto next = e.wanted.lower_bound(start);
  if (next != e.wanted.end() && next->first == start) return Tensor();  // wanted already
  if (next != e.wanted.end() && next->first < start + count) return Tensor();
  if (next != e.wanted.begin() && std::prev(next)->first + std::prev(next)->second > start)
    return Tensor();
  e.wanted.emplace(start, count);
  e.starts_stale = true;
  return Tensor();
}

}  // namespace sb
