#pragma once
// Activations as Eigen array expressions: evaluated lazily, so a caller's whole epilogue
// (bias, activation, residual) becomes one vectorized loop. Eigen's exp/log1p/erf are accurate
// to a few ulp in float, and vectorized (std::exp and std::erf are not without -ffast-math).
#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include <cmath>

#include "models/ops/backend.h"

namespace sb::cpu {

using ArrayMap = Eigen::Map<Eigen::ArrayXf>;
using ConstArrayMap = Eigen::Map<const Eigen::ArrayXf>;

// Calls emit(act(in)) with the activation as an expression over `in`.
template <class In, class Emit>
void with_activation(Act act, const In& in, Emit&& emit) {
  switch (act) {
    case Act::none:
      emit(in);
      return;
    case Act::relu:
      emit(in.max(0.0f));
      return;
    case Act::gelu:  // the model's GELU: x * sigmoid(1.702 x)
      emit(in * (1.0f + (-1.702f * in).exp()).inverse());
      return;
    case Act::softplus:  // log(1 + e^x) without overflow: max(x, 0) + log1p(e^-|x|)
      emit(in.max(0.0f) + (-in.abs()).exp().log1p());
      return;
    case Act::gelu_erf:  // PyTorch's exact GELU: 0.5 x (1 + erf(x / sqrt 2))
      // Eigen's erf, vectorized (std::erf per element was DeepFM's slowest elementwise op).
      emit(0.5f * in * (1.0f + (in * 0.70710678f).erf()));
      return;
    case Act::leaky_relu:  // slope 0.01 below zero
      emit(in.max(0.01f * in));
      return;
    case Act::sigmoid:  // 1 / (1 + e^-x); e^-x overflows to inf for x < -88, giving 0
      emit((1.0f + (-in).exp()).inverse());
      return;
  }
}

// dx[i] = dy[i] * act'(x[i]) over n elements (backward.cpp); dx may be dy.
void activation_backward_range(Act act, const float* x, const float* dy, float* dx, int64_t n);

// y[i] = act(x[i] * scale[i] + shift[i]) over n elements; scale/shift may be null; y may be x.
void affine_act(const float* x, const float* scale, const float* shift, Act act, float* y,
                int64_t n);

}  // namespace sb::cpu
