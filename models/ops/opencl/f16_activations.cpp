// The f16 copies of held activations (opencl_backend_impl.h's block, dfm35): DeepFM's forward
// products read activations that one op wrote (the embedding, a LayerNorm, an activation with
// its dropout), and each paid a pack_f16_pair launch to turn them into f16 (5 launches of 5-6
// us, results/h200/dfm33-2026-11-29/timeline-split.*), though the weights' images (bf16_copies.
// cpp) left x alone to pack. The producer writes the copy instead, rounded as the pack rounds
// (vstore_half: to nearest even), so the product reads the same halves.
#include <cstdlib>
#include <cstring>

#include "models/ops/knobs.h"
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

bool f16_activations_requested() {
  return read_on_off_knob("STAGEBENCH_F16_ACTIVATIONS");
}

void OpenCLBackend::notice_f16_copy(const Tensor& t) {
  if (!t.defined() || !f16_activations_ || !f16_images_on()) return;
  // A new notice starts a new copy; copies of tensors nothing holds now are stale or unused.
  for (auto it = f16_copies_.begin(); it != f16_copies_.end();)
    it = it->first == t.storage() || !held_.contains(it->first) ? f16_copies_.erase(it)
                                                                : std::next(it);
  f16_copy_noticed_[t.storage()] = t;
}

const Tensor* OpenCLBackend::f16_copy_to_write(const Tensor& y) {
  if (f16_copy_noticed_.empty() || !y.defined()) return nullptr;
  const auto n = f16_copy_noticed_.find(y.storage());
  if (n == f16_copy_noticed_.end() || n->second.numel() != y.numel()) return nullptr;
  F16Copy& c = f16_copies_[y.storage()];
  c.source = n->second;
  c.copy = do_empty({y.numel()}, DType::f16);
  f16_copy_noticed_.erase(n);
  // The same notice registered y for a parameter's image too (will_hold_read_only cannot tell
  // the two apart); an activation's producer ends that one as well, so it keeps y alive no longer.
  f16_noticed_.erase(y.storage());
  return &c.copy;
}

Tensor OpenCLBackend::held_f16_copy(const Tensor& t, int64_t count) {
  const auto it =
      f16_copies_.empty() || !t.defined() ? f16_copies_.end() : f16_copies_.find(t.storage());
  if (it == f16_copies_.end()) return Tensor();
  if (!held_.contains(t.storage())) {  // released since: whatever wrote t next made it stale
    f16_copies_.erase(it);
    return Tensor();
  }
  return it->second.copy.numel() == count ? it->second.copy : Tensor();
}

}  // namespace sb
