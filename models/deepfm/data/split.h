#pragma once
// The 80/20 split, stratified on a class label, and the class weights of the training split.
#include <cstdint>
#include <span>
#include <vector>

namespace sb::deepfm {

struct Split {
  std::vector<int64_t> train, test;  // row indices, ascending, disjoint, together every row
};

// The test split holds round(test_fraction * rows) rows, shared among the classes by largest
// remainder, so that each class's test count is the floor or the ceiling of test_fraction times
// its count. Which rows of a class go to test is a seeded shuffle (the same on every platform).
// Throws std::invalid_argument for a label outside [0, classes).
Split stratified_split(std::span<const int32_t> labels, int classes, double test_fraction,
                       uint64_t seed);

// 1 / ln(count + 2) per class over the labels given (a class absent gets 1 / ln 2), normalised to
// mean 1 over the classes.
std::vector<float> class_weights(std::span<const int32_t> labels, int classes);

}  // namespace sb::deepfm
