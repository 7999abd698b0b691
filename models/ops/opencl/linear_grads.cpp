// A linear layer's backward (CoreOps::linear_backward) on the f16 tensor-core path in one pack
// launch (dfm36). Its two products read dy transposed and straight, x transposed and W
// transposed, none of which a producer's f16 copy or the optimizer's image holds, so each product
// paid a pack_f16_pair launch, and db a sum_axis1 launch: three commands of 5-20 us each before
// the two products (DeepFM's backward: 12 packs and 6 sums a step,
// results/h200/dfm35-2026-11-29/timeline-on.trace.json.gz). pack_f16_linear_grads
// (kernels/gemm_pack.cl) writes all four operands and db in one.
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "models/ops/knobs.h"
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

bool linear_grads_one_pack_requested() {
  return read_knob("STAGEBENCH_LINEAR_GRADS", true, {{"one-pack", true}, {"off", false}});
}

bool OpenCLBackend::linear_grads_packs(const GemmBatch& g) const {
  return g.precision == Precision::f16 && gemm_batched_on_mma(g) && !gemm_batched_mma_small(g) &&
         gemm_pipelined(g.precision, g.k) && g.k % 8 == 0 && g.bias == nullptr;
}

void OpenCLBackend::do_linear_backward(const GemmBatch& dw_g, const GemmBatch* dx_g,
                                       const Tensor& x, const Tensor& dy, const Tensor& w,
                                       Tensor& dw, Tensor& db, Tensor* dx) {
  if (!linear_grads_one_pack_ || !linear_grads_packs(dw_g) ||
      (dx_g != nullptr && !linear_grads_packs(*dx_g)))
    return CoreOps::do_linear_backward(dw_g, dx_g, x, dy, w, dw, db, dx);
  const int out = to_cl_int(dw_g.m, "linear_backward out"),
            in = to_cl_int(dw_g.n, "linear_backward in"),
            rows = to_cl_int(dw_g.k, "linear_backward rows");
  // dW's operands: dy^T [out, rows] and x^T [in, rows]; dx's: dy [rows, out] and W^T [in, out].
  const Tensor dyt = do_empty({out, rows}, DType::f16), xt = do_empty({in, rows}, DType::f16);
  const bool with_dx = dx_g != nullptr;
  const Tensor dyh = with_dx ? do_empty({rows, out}, DType::f16) : dyt;
  const Tensor wt = with_dx ? do_empty({in, out}, DType::f16) : xt;
  const int dx_rows = with_dx ? rows : 0, wt_rows = with_dx ? in : 0;
  constexpr size_t kTile = 16, kColsPerItem = 8;  // PACK_TILE, and PAIR_COLS / PACK_TILE
  const int64_t widest = std::max(rows, out), tallest = std::max({rows, out, in});
  const cl::NDRange global(round_up(widest / static_cast<int64_t>(kColsPerItem), kTile),
                           round_up(tallest, kTile), 5);
  launch_mma("pack_f16_linear_grads", global, cl::NDRange(kTile, kTile, 1),  //
             dy, out, 1, out, rows, dyt,                                     // dy^T
             x, in, 1, in, rows, xt,                                         // x^T
             dy, out, 0, dx_rows, out, dyh,                                  // dy
             w, in, 1, wt_rows, out, wt,                                     // W^T
             rows, out, db);
  gemm_batched_mma_product(dw_g, dyt, xt, dw);
  if (with_dx) gemm_batched_mma_product(*dx_g, dyh, wt, *dx);
}

}  // namespace sb
