#pragma once
// What the paired-noise criterion (stopping.h) divides a stage's rounds by (docs/method.md,
// "Paired noise"): a stage with a baseline other than itself, its baseline's times in the same
// rounds (the paired speedup's noise); a stage that is its own baseline (stage 0), the ladder's
// drift in each round: the median over the other stages of their time in that round over their
// median time. Both move with what is common to a round (a VM's drift), and cancel it.
#include <cstddef>
#include <optional>
#include <vector>

namespace sb {

// samples[i]: stage i's times, one per round in round order (stages measured in the same
// rounds); baseline: the index of stage i's baseline, or none. Empty when there is nothing to
// pair with (no baseline and no other stage with samples).
std::vector<double> paired_reference(const std::vector<const std::vector<double>*>& samples,
                                     size_t i, std::optional<size_t> baseline);

}  // namespace sb
