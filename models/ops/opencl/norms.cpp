// LayerNorm (one pass, residual-fused, or the normalization after row_moments) and the
// softmaxes (kernels/norms.cl): a work-group per row for the row reductions; rows of whole
// 8-column groups up to 1,024 wide on layernorm_rows_vec8_{1,2,4}, 8 rows a work-group.
#include <stdexcept>
#include <string>

#include "models/ops/knobs.h"
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

// The kernels' `halves` argument (ACT_HALF_*, activation_codes.h): which tensors hold f16.
int half_flags(const Tensor& x, const Tensor* residual, const Tensor& y) {
  const auto h = [](const Tensor& t) { return t.dtype() == DType::f16; };
  return (h(x) ? ACT_HALF_X : 0) | (residual && h(*residual) ? ACT_HALF_RESIDUAL : 0) |
         (h(y) ? ACT_HALF_Y : 0);
}

// Whether layernorm_rows_vec8_* take rows this wide: whole 8-column groups, at most
// 8 x 32 lanes x 4 chunks (LNV_CHUNKS in kernels/norms.cl).
bool vec8_width(int64_t cols) {
  return cols % 8 == 0 && cols <= 8 * 32 * 4;
}

constexpr size_t kRows = 8, kItems = 256;  // LN_ROWS, LN_LANES * LN_ROWS in kernels/norms.cl
constexpr int64_t kLanes = 32;             // LN_LANES

}  // namespace

bool row_kernels_vec_requested() {
  return read_knob("STAGEBENCH_ROW_KERNELS", true, {{"vec", true}, {"lanes", false}});
}

// STAGEBENCH_LAYERNORM_WARP=off keeps NVIDIA on the portable 16-byte kernels, for A/B runs.
bool layernorm_warp_requested() {
  return read_on_off_knob("STAGEBENCH_LAYERNORM_WARP");
}

void OpenCLBackend::launch_layernorm_vec8(const Tensor& x, const Tensor* residual,
                                          const Tensor& gamma, const Tensor& beta, float eps,
                                          Tensor& y) {
  const int64_t cols = x.dim(-1), rows = x.numel() / cols;
  const size_t groups = (static_cast<size_t>(rows) + kRows - 1) / kRows;
  // The kernel whose registers hold the row and no more (LAYERNORM_VEC8 in kernels/norms.cl,
  // LAYERNORM_WARP in kernels/layernorm_warp_nvidia.cl), 1, 2 or 4 groups of 8 a lane.
  const int64_t lane_groups = (cols / 8 + kLanes - 1) / kLanes;
  const char* chunks = lane_groups <= 1 ? "1" : lane_groups <= 2 ? "2" : "4";
  const cl::NDRange global(groups * kItems), local(kItems);
  const Tensor& r = residual ? *residual : x;
  const int has_r = residual ? 1 : 0, c = static_cast<int>(cols), n = static_cast<int>(rows);
  const int halves = half_flags(x, residual, y);
  if (layernorm_warp_ && has_mma()) {  // a warp a row, shuffles for the sums (NVIDIA only)
    // With y's f16 copy where one is noticed (DeepFM's products' inputs, f16_activations.cpp).
    const Tensor* copy = f16_copy_to_write(y);
    launch_mma(std::string("layernorm_rows_warp_") + chunks, global, local, x, r, has_r, gamma,
               beta, eps, c, n, y, halves, copy, copy ? 1 : 0);
    return;
  }
  launch(std::string("layernorm_rows_vec8_") + chunks, global, local, x, r, has_r, gamma, beta, eps,
         c, n, y, halves);
}

void OpenCLBackend::do_layernorm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                 float eps, Tensor& y) {
  const int64_t cols = x.dim(-1), rows = x.numel() / cols;
  if (row_kernels_vec_ && vec8_width(cols)) {
    launch_layernorm_vec8(x, nullptr, gamma, beta, eps, y);
    return;
  }
  const size_t wg = reduce_group();
  launch("layernorm_welford", cl::NDRange(rows * wg), cl::NDRange(wg), x, gamma, beta, eps, cols, y,
         half_flags(x, nullptr, y));
}

void OpenCLBackend::do_add_layernorm(const Tensor& x, const Tensor& residual, const Tensor& gamma,
                                     const Tensor& beta, float eps, Tensor& y) {
  const int64_t cols = x.dim(-1), rows = x.numel() / cols;
  const int halves = half_flags(x, &residual, y);
  if (cols > 32 * 32) {  // wider than a row in registers: the residual add, then LayerNorm
    if (halves != 0)
      throw std::invalid_argument("add_layernorm: f16 rows of " + std::to_string(cols) +
                                  " columns (over 1024) have no kernel");
    do_add(x, residual, y);
    do_layernorm(y, gamma, beta, eps, y);
    return;
  }
  if (row_kernels_vec_ && vec8_width(cols)) {
    launch_layernorm_vec8(x, &residual, gamma, beta, eps, y);
    return;
  }
  const size_t groups = (static_cast<size_t>(rows) + kRows - 1) / kRows;
  launch("add_layernorm_rows", cl::NDRange(groups * kItems), cl::NDRange(kItems), x, residual,
         gamma, beta, eps, static_cast<int>(cols), static_cast<int>(rows), y, halves);
}

void OpenCLBackend::do_normalize_rows(const Tensor& x, const Tensor& mean, const Tensor& var,
                                      const Tensor& gamma, const Tensor& beta, float eps,
                                      Tensor& y) {
  const int64_t n = x.numel();
  launch("layernorm_apply", cl::NDRange(round_up(n, 256)), cl::NDRange(256), x, mean, var, gamma,
         beta, eps, x.dim(-1), n, y);
}

void OpenCLBackend::do_softmax_rows(Tensor& x) {
  const int64_t cols = x.dim(-1), rows = x.numel() / cols;
  const size_t wg = reduce_group();
  launch("softmax_rows", cl::NDRange(rows * wg), cl::NDRange(wg), x, cols);
}

void OpenCLBackend::do_softmax_axis1(const Tensor& x, Tensor& y) {
  const int64_t n = x.dim(1), inner = x.dim(2), columns = x.dim(0) * inner;
  launch("softmax_axis1", cl::NDRange(round_up(columns, 256)), cl::NDRange(256), x, n, inner,
         columns, y);
}

}  // namespace sb
