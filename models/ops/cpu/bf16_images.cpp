#include "models/ops/cpu/bf16_images.h"

#include <algorithm>
#include <new>
#include <vector>

#include "models/ops/cpu/bf16_pack.h"
#include "models/ops/cpu/host_pool.h"
#include "models/ops/cpu/parallel.h"
#include "models/ops/knobs.h"

namespace sb::cpu {

namespace {

// Elements a block: small enough that a product's operand converts little beyond itself, large
// enough that the per-block flags cost nothing.
constexpr int64_t kBlock = 4096;

}  // namespace

// The buffer comes from the process's HostPool and goes back at the last release: a step holds
// and releases the same tensors again, so the pool hands the same blocks back (no page faults),
// and no image outlives its hold in the tracked bytes.
struct Bf16Images::Image {
  int64_t numel = 0;
  int holds = 0;
  uint16_t* bits = nullptr;
  size_t bytes = 0;
  std::vector<uint8_t> ready;  // per block
};

bool bf16_images_requested() {
  return read_on_off_knob("STAGEBENCH_CPU_BF16_IMAGES");
}

Bf16Images::Bf16Images(std::shared_ptr<AllocationTracker> tracker)
    : tracker_(std::move(tracker)), enabled_(bf16_images_requested()) {}

Bf16Images::~Bf16Images() {
  for (auto& [base, im] : images_) free_bits(*im);
}

void Bf16Images::free_bits(Image& im) {
  if (im.bits == nullptr) return;
  HostPool::process().give(im.bits, im.bytes);
  tracker_->released(im.bytes);
  im.bits = nullptr;
  im.bytes = 0;
}

void Bf16Images::hold(const float* base, int64_t numel) {
  if (!enabled_ || numel <= 0) return;
  auto& slot = images_[base];
  if (!slot) slot = std::make_unique<Image>();
  Image& im = *slot;
  const bool fresh = im.holds++ == 0;
  if (!fresh && numel <= im.numel) return;  // a nested hold inside the held extent
  im.numel = fresh ? numel : std::max(im.numel, numel);
  // The buffer comes at the first read (find): holds that no bf16 product reads (DynUNet's,
  // for its convolutions) cost no memory. Nothing converted yet: the values may have changed
  // since the last hold.
  if (static_cast<size_t>(im.numel) * 2 > im.bytes) free_bits(im);
  im.ready.assign(static_cast<size_t>((im.numel + kBlock - 1) / kBlock), 0);
}

void Bf16Images::release(const float* base) {
  auto it = images_.find(base);
  if (it == images_.end()) return;
  if (--it->second->holds > 0) return;
  free_bits(*it->second);
  images_.erase(it);
}

const uint16_t* Bf16Images::find(const float* p, int64_t count) {
  if (!enabled_ || images_.empty() || count <= 0) return nullptr;
  auto it = images_.upper_bound(p);  // the first base above p: the one before may hold p
  if (it == images_.begin()) return nullptr;
  --it;
  Image& im = *it->second;
  const float* base = it->first;
  if (p + count > base + im.numel) return nullptr;
  if (im.bits == nullptr) {
    const size_t bytes = (static_cast<size_t>(im.numel) * 2 + 63) / 64 * 64;
    im.bits = static_cast<uint16_t*>(HostPool::process().take(bytes, 64));
    if (im.bits == nullptr) throw std::bad_alloc();
    im.bytes = bytes;
    tracker_->allocated(bytes);
  }
  const int64_t from = p - base, b0 = from / kBlock, b1 = (from + count - 1) / kBlock + 1;
  std::vector<int64_t> todo;
  for (int64_t b = b0; b < b1; ++b)
    if (!im.ready[static_cast<size_t>(b)]) todo.push_back(b);
  if (!todo.empty()) {
    uint16_t* bits = im.bits;
    const int64_t numel = im.numel;
    parallel_for(static_cast<int64_t>(todo.size()), kBlock, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t e0 = todo[static_cast<size_t>(t)] * kBlock;
        const int64_t e1 = std::min(numel, e0 + kBlock);
        for (int64_t e = e0; e < e1; ++e) bits[e] = to_bf16(base[e]);
      }
    });
    for (int64_t b : todo) im.ready[static_cast<size_t>(b)] = 1;
    converted_ += todo.size();
  }
  return im.bits + from;
}

}  // namespace sb::cpu
