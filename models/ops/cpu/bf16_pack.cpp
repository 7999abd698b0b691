#include "models/ops/cpu/bf16_pack.h"

#include <algorithm>

#include "models/ops/cpu/parallel.h"

namespace sb::cpu {

namespace {

inline void store_rounded(uint16_t& to, float v) {
  to = to_bf16(v);
}
inline void store_rounded(float& to, float v) {
  to = round_to_bf16(v);
}

// Output rows a task of the transposing pack covers: its reads are `kPackBlock` floats of each
// input row (one cache line), its writes `kPackBlock` output rows advancing together.
constexpr int64_t kPackBlock = 16;

template <class T>
void pack_items(const float* base, const std::vector<int64_t>& offsets, int64_t rows, int64_t cols,
                int64_t ld, bool transpose, T* out) {
  const int64_t items = static_cast<int64_t>(offsets.size()), size = rows * cols;
  if (!transpose) {
    // One task per (item, row): contiguous in and out.
    parallel_for(items * rows, cols, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t it = t / rows, r = t % rows;
        const float* in = base + offsets[it] + r * ld;
        T* to = out + it * size + r * cols;
        for (int64_t c = 0; c < cols; ++c) store_rounded(to[c], in[c]);
      }
    });
    return;
  }
  // Output [cols, rows]: one task per (item, block of kPackBlock output rows = input columns).
  const int64_t blocks = (cols + kPackBlock - 1) / kPackBlock;
  parallel_for(items * blocks, rows * kPackBlock, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t it = t / blocks, c0 = (t % blocks) * kPackBlock;
      const int64_t c1 = std::min(cols, c0 + kPackBlock);
      const float* in = base + offsets[it];
      T* to = out + it * size;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = c0; c < c1; ++c) store_rounded(to[c * rows + r], in[r * ld + c]);
    }
  });
}

}  // namespace

void pack_bf16(const float* base, const std::vector<int64_t>& offsets, int64_t rows, int64_t cols,
               int64_t ld, bool transpose, uint16_t* out) {
  pack_items(base, offsets, rows, cols, ld, transpose, out);
}

void pack_bf16(const float* base, const std::vector<int64_t>& offsets, int64_t rows, int64_t cols,
               int64_t ld, bool transpose, float* out) {
  pack_items(base, offsets, rows, cols, ld, transpose, out);
}

}  // namespace sb::cpu
