// Data movement: im2col for the 1-D convolutions (with the input transform fused into the
// gather), row-range copies, and the embedding gather.
#include <algorithm>
#include <cstring>

#include "models/ops/cpu/activation.h"
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/op_times.h"
#include "models/ops/cpu/parallel.h"

namespace sb::cpu {

void CpuBackend::do_im2col(const Tensor& x, int k, Tensor& cols, const InputTransform& t) {
  const OpScope op_scope(op_log(), [&] {
    return "im2col k" + std::to_string(k) + " " + std::to_string(x.dim(0) * x.dim(1)) + "x" +
           std::to_string(x.dim(2));
  });
  const int64_t batch = x.dim(0), len = x.dim(1), c = x.dim(2);
  const float* scale = t.scale != nullptr ? f32_data(*t.scale, "im2col scale") : nullptr;
  const float* shift = t.shift != nullptr ? f32_data(*t.shift, "im2col shift") : nullptr;
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

void CpuBackend::do_copy_rows(const Tensor& x, int64_t start, Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "copy_rows " + std::to_string(y.numel()); });
  const int64_t batch = x.dim(0), len = x.dim(1), c = x.dim(2), rows = y.dim(1);
  const float* xp = f32_data(x, "copy_rows input");
  float* yp = f32_data(y, "copy_rows output");
  parallel_for(batch * rows, c, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / rows, i = r % rows;
      std::memcpy(yp + r * c, xp + (b * len + start + i) * c, c * sizeof(float));
    }
  });
}

// The front admits fp32 only here (the cpu backend has no f16 kernels): a copy.
void CpuBackend::do_convert(const Tensor& x, Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "convert " + std::to_string(y.numel()); });
  const float* xp = f32_data(x, "convert input");
  float* yp = f32_data(y, "convert output");
  parallel_for(x.numel(), 1, [&](int64_t i0, int64_t i1) {
    std::memcpy(yp + i0, xp + i0, (i1 - i0) * sizeof(float));
  });
}

void CpuBackend::do_embedding(const Tensor& table, const Tensor& ids, const Tensor* rows,
                              Tensor& y) {
  const OpScope op_scope(op_log(), [&] { return "embedding " + std::to_string(y.numel()); });
  const int64_t d = table.dim(1), seq = ids.dim(1), tokens = ids.numel();
  const float* rp = rows != nullptr ? f32_data(*rows, "embedding rows") : nullptr;
  const float* tp = f32_data(table, "embedding table");
  const int32_t* ip = i32_data(ids, "embedding ids");
  float* yp = f32_data(y, "embedding output");
  parallel_for(tokens, 2 * d, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      ConstArrayMap row(tp + ip[t] * d, d);
      if (rp != nullptr) {
        ArrayMap(yp + t * d, d) = row + ConstArrayMap(rp + (t % seq) * d, d);
      } else {
        ArrayMap(yp + t * d, d) = row;
      }
    }
  });
}

}  // namespace sb::cpu
