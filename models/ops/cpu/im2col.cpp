// Data movement: im2col for the 1-D convolutions (with the input transform fused into the
// gather) and row-range copies.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "models/ops/cpu/activation.h"
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/parallel.h"

namespace sb::cpu {

void CpuBackend::im2col(const Tensor& x, int k, Tensor& cols, const InputTransform& t) {
  expect_rank(x, 3, "im2col", "input");
  if (k <= 0) throw std::invalid_argument("cpu im2col: kernel width must be positive");
  const int64_t batch = x.dim(0), len = x.dim(1), c = x.dim(2);
  expect_numel(cols, batch * len * k * c, "im2col", "cols");
  const float* scale = nullptr;
  const float* shift = nullptr;
  if (t.scale != nullptr) {
    expect_numel(*t.scale, c, "im2col", "transform scale");
    scale = f32_data(*t.scale, "im2col scale");
  }
  if (t.shift != nullptr) {
    expect_numel(*t.shift, c, "im2col", "transform shift");
    shift = f32_data(*t.shift, "im2col shift");
  }
  const bool plain = scale == nullptr && shift == nullptr && t.act == Act::none;
  const float* xp = f32_data(x, "im2col input");
  float* out = f32_data(cols, "im2col cols");
  const int64_t row_len = int64_t{k} * c, half = k / 2;
  parallel_for(batch * len, row_len, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / len, l = r % len;
      float* dst = out + r * row_len;
      for (int64_t j = 0; j < k; ++j) {
        const int64_t src_pos = l + j - half;
        if (src_pos < 0 || src_pos >= len) {
          std::fill_n(dst + j * c, c, 0.0f);  // padding of the transformed input stays zero
        } else if (plain) {
          std::memcpy(dst + j * c, xp + (b * len + src_pos) * c, c * sizeof(float));
        } else {
          affine_act(xp + (b * len + src_pos) * c, scale, shift, t.act, dst + j * c, c);
        }
      }
    }
  });
}

void CpuBackend::copy_rows(const Tensor& x, int64_t start, Tensor& y) {
  expect_rank(x, 3, "copy_rows", "input");
  expect_rank(y, 3, "copy_rows", "output");
  const int64_t batch = x.dim(0), len = x.dim(1), c = x.dim(2), rows = y.dim(1);
  if (y.dim(0) != batch || y.dim(2) != c || start < 0 || start + rows > len) {
    throw std::invalid_argument("cpu copy_rows: rows [" + std::to_string(start) + ", " +
                                std::to_string(start + rows) + ") of " + x.shape_string() +
                                " do not fit " + y.shape_string());
  }
  const float* xp = f32_data(x, "copy_rows input");
  float* yp = f32_data(y, "copy_rows output");
  parallel_for(batch * rows, c, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / rows, i = r % rows;
      std::memcpy(yp + r * c, xp + (b * len + start + i) * c, c * sizeof(float));
    }
  });
}

}  // namespace sb::cpu
