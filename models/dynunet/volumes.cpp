#include "models/dynunet/volumes.h"

#include <stdexcept>

#include "models/ops/dropout_hash.h"

namespace sb::dynunet {
namespace {

// A uniform value in [0, 1) from the hash of (key, counter).
float unit(uint32_t key, uint32_t counter) {
  return static_cast<float>(dropout_mix32(key ^ dropout_mix32(counter)) >> 8) / 16777216.0f;
}

}  // namespace

void make_volumes(uint64_t seed, int64_t first, int64_t batch, int64_t patch,
                  std::span<float> image, std::span<float> mask) {
  const int64_t voxels = patch * patch * patch;
  if (static_cast<int64_t>(image.size()) < batch * voxels ||
      static_cast<int64_t>(mask.size()) < batch * voxels)
    throw std::invalid_argument("dynunet: volume buffers smaller than the batch");
  const auto p = static_cast<float>(patch);
  for (int64_t n = 0; n < batch; ++n) {
    const uint32_t key = dropout_key32(seed, static_cast<uint64_t>(first + n));
    // Radius in [P/8, P/4); centre at least a radius inside the patch.
    const float r = p / 8 + unit(key, 0xfffffff0u) * p / 8;
    float centre[3];
    for (int a = 0; a < 3; ++a) centre[a] = r + unit(key, 0xfffffff1u + a) * (p - 2 * r);
    const float contrast = 0.5f + unit(key, 0xfffffff4u);
    float* img = image.data() + n * voxels;
    float* msk = mask.data() + n * voxels;
    for (int64_t z = 0; z < patch; ++z)
      for (int64_t y = 0; y < patch; ++y)
        for (int64_t x = 0; x < patch; ++x) {
          const int64_t v = (z * patch + y) * patch + x;
          const float dz = z + 0.5f - centre[0], dy = y + 0.5f - centre[1],
                      dx = x + 0.5f - centre[2];
          const float inside = dz * dz + dy * dy + dx * dx <= r * r ? 1.f : 0.f;
          msk[v] = inside;
          img[v] = inside * contrast + (unit(key, static_cast<uint32_t>(v)) - 0.5f);
        }
  }
}

}  // namespace sb::dynunet
