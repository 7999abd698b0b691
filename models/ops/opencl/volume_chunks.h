#pragma once
// How the volume reductions (instance norm, soft Dice: kernels/volume_chunks.cl) split
// [N, C, V] into work-groups: cb_size channels a work-group (ndhwc: as many as fit, side by
// side; ncdhw: one), rows = wg / cb_size voxels at a time, chunk voxels a group, chunks of them
// per instance. Depends on the shape and the work-group size alone, so sums repeat bit for bit.
#include <algorithm>
#include <cstdint>

#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

struct VolumeChunks {
  int cb_size, blocks, chunk, chunks;
};

// Work-groups aimed for: several per multiprocessor on the GPUs measured (132 on the H100),
// while each item still adds a few elements (at least 4 voxel rows).
inline VolumeChunks volume_chunks(int64_t batch, int64_t channels, int64_t voxels, bool ndhwc,
                                  size_t wg) {
  constexpr int64_t kTargetGroups = 1024;
  VolumeChunks p{};
  p.cb_size = ndhwc ? static_cast<int>(std::min<int64_t>(channels, static_cast<int64_t>(wg))) : 1;
  p.blocks = static_cast<int>((channels + p.cb_size - 1) / p.cb_size);
  const int64_t rows = static_cast<int64_t>(wg) / p.cb_size;
  const int64_t wanted = std::max<int64_t>(1, kTargetGroups / (batch * p.blocks));
  const int64_t chunk = std::max<int64_t>(4 * rows, (voxels + wanted - 1) / wanted);
  p.chunk = to_cl_int(chunk, "volume chunk");
  p.chunks = to_cl_int((voxels + chunk - 1) / chunk, "volume chunks");
  return p;
}

}  // namespace sb
