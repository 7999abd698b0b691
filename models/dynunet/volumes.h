#pragma once
// DynUNet's training data: seeded synthetic volumes with a structure to learn, made on the fly.
// Sample i is a ball of random centre and radius, brighter than its background, under uniform
// noise; its mask is the ball. Everything follows from (seed, i) through a counter-based hash,
// so any worker makes any sample, in any order, bit for bit the same.
#include <cstdint>
#include <span>

namespace sb::dynunet {

// Fills image and mask, each batch x patch^3 floats ([N, 1, P, P, P]: with one channel the
// bytes are the same in either layout), with samples first .. first + batch - 1.
void make_volumes(uint64_t seed, int64_t first, int64_t batch, int64_t patch,
                  std::span<float> image, std::span<float> mask);

}  // namespace sb::dynunet
