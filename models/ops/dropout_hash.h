#pragma once
// The counter-based dropout mask (DropoutKey, op_types.h), defined once for every backend. The
// OpenCL kernel implements the same arithmetic, so both draw the same mask bit for bit:
//
//   mix32(x):  x ^= x >> 16; x *= 0x21f0aaad; x ^= x >> 15; x *= 0x735a2d97; x ^= x >> 15
//   key      = mix32(seed_lo ^ mix32(seed_hi ^ mix32(stream_lo ^ mix32(stream_hi))))  (host)
//   keep(i)  = (mix32(key ^ mix32((uint32)i)) >> 8) >= threshold,
//              threshold = (uint32)(p * 16777216.0f)   (p as a 24-bit fraction, float product)
//   y[i]     = keep(i) ? x[i] * scale : 0,   scale = 1.0f / (1.0f - p)   (float, on the host)
//
// seed_lo/hi and stream_lo/hi are the low and high 32 bits of DropoutKey::seed and ::stream; i is
// the element's index in the tensor (taken modulo 2^32). p = 0 keeps everything at scale 1.
#include <cstdint>

#include "models/ops/op_types.h"

namespace sb {

constexpr uint32_t dropout_mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x21f0aaadu;
  x ^= x >> 15;
  x *= 0x735a2d97u;
  x ^= x >> 15;
  return x;
}

// The key of one call, computed once on the host.
constexpr uint32_t dropout_key32(uint64_t seed, uint64_t stream) {
  const auto lo = [](uint64_t v) { return static_cast<uint32_t>(v); };
  const auto hi = [](uint64_t v) { return static_cast<uint32_t>(v >> 32); };
  return dropout_mix32(
      lo(seed) ^ dropout_mix32(hi(seed) ^ dropout_mix32(lo(stream) ^ dropout_mix32(hi(stream)))));
}
constexpr uint32_t dropout_key32(const DropoutKey& k) {
  return dropout_key32(k.seed, k.stream);
}

// p in [0, 1) as a 24-bit threshold: an element is dropped when its 24-bit hash is below it.
constexpr uint32_t dropout_threshold(float p) {
  return static_cast<uint32_t>(p * 16777216.0f);
}

// What kept elements are multiplied by (float arithmetic, as every backend computes it).
constexpr float dropout_scale(float p) {
  return 1.0f / (1.0f - p);
}

constexpr bool dropout_keep(uint32_t key, uint32_t threshold, uint64_t i) {
  return (dropout_mix32(key ^ dropout_mix32(static_cast<uint32_t>(i))) >> 8) >= threshold;
}

}  // namespace sb
