#pragma once
// Gradient checks by central finite differences, for the backward ops and the losses. The
// function differentiated runs its forward op on the backend under test (so the same checks run
// on every backend); the differences and quotients are taken in double. The forward runs in f32,
// so steps are large (1e-2 relative) and a gradient matches at about 1e-2 relative L2 error:
// inputs must keep away from kinks (relu at 0) by more than a step.
#include <functional>
#include <string>

#include "tests/ops/op_case.h"

namespace sb::testing {

// d f / d x_i = (f(x + h_i e_i) - f(x - h_i e_i)) / (2 h_i), h_i = rel_step * max(1, |x_i|).
// Under STAGEBENCH_GRADIENT_SAMPLES=N only N coordinates, spread from first to last, and NaN
// for the others, which gradient_matches leaves out: the Oclgrind pass (scripts/oclgrind-ci.sh)
// keeps every backward kernel but not thousands of forward launches.
DVec numeric_gradient(const Vec& x, const std::function<double(const Vec&)>& f,
                      double rel_step = 1e-2);

// sum_i w_i y_i in double: the scalar whose gradient with respect to y is w (the upstream dy).
double dot(const Vec& w, const Vec& y);

// x with every |x_i| < margin moved to +-margin (its sign kept, 0 going up): inputs away from a
// kink at 0 by more than a finite-difference step.
Vec away_from_zero(Vec x, float margin = 0.1f);

// The backend's gradient `got` against the numeric one, by relative L2 error.
Check gradient_matches(std::string what, Vec got, DVec numeric, double tol = 1e-2);

}  // namespace sb::testing
