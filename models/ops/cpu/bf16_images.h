#pragma once
// bf16 images of tensors held read-only (Backend::hold_read_only): the bf16 products' operands
// converted once per hold instead of once per product. DeepFM's amp step packed each weight and
// activation twice (forward, and again for the backward product that reads it), 27 per-call
// packs that took its products from 1.17 ms on AMX alone to 4.21 ms
// (results/h200-host/cpu36-2026-11-29, call 2). An image is made lazily, a block at a time, as
// products read it, so parts of a held buffer that no product reads (the embedding table in
// DeepFM's flat parameters) are never converted. The values are pack_bf16's (to_bf16), so a
// product reads the same bits either way. STAGEBENCH_CPU_BF16_IMAGES=off: every product packs
// its operands as before (for A/B runs).
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>

#include "instrument/allocation_tracker.h"

namespace sb::cpu {

class Bf16Images {
 public:
  explicit Bf16Images(std::shared_ptr<AllocationTracker> tracker);
  ~Bf16Images();
  Bf16Images(const Bf16Images&) = delete;
  Bf16Images& operator=(const Bf16Images&) = delete;

  // Holds nest, counted per base pointer; an image lives from its first hold to its last
  // release (its buffer back to the process's HostPool then).
  void hold(const float* base, int64_t numel);
  void release(const float* base);

  // The bf16 image of [p, p + count) when it lies inside a held tensor, its blocks converted
  // now if they were not yet; nullptr when no held tensor covers it (or the knob is off).
  const uint16_t* find(const float* p, int64_t count);

  bool enabled() const { return enabled_; }
  size_t converted_blocks() const { return converted_; }  // over the process, for tests

 private:
  struct Image;
  void free_bits(Image& im);
  std::shared_ptr<AllocationTracker> tracker_;
  std::map<const float*, std::unique_ptr<Image>> images_;
  bool enabled_;
  size_t converted_ = 0;
};

// STAGEBENCH_CPU_BF16_IMAGES: on (default) or off.
bool bf16_images_requested();

}  // namespace sb::cpu
