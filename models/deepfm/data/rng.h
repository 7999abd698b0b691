#pragma once
// A small seeded generator of our own: std::mt19937 is portable but std::shuffle and the std
// distributions are not, and the synthetic table, the split and the batch order must be the same
// on every standard library.
#include <cstdint>
#include <span>
#include <utility>

namespace sb::deepfm {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // The modulo bias is below 2^-40 for the sizes used here.
  uint64_t below(uint64_t n) { return next() % n; }
  // Uniform in [0, 1), 53 bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }

 private:
  uint64_t state_;
};

// Derives independent streams (per epoch, per purpose) from one user seed.
inline uint64_t mix_seed(uint64_t seed, uint64_t salt) {
  Rng r(seed ^ (salt * 0xd1b54a32d192ed03ULL + 0x8cb92ba72f3d8dd7ULL));
  return r.next();
}

template <class T>
void shuffle(std::span<T> v, Rng& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

}  // namespace sb::deepfm
