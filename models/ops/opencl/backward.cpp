// Backward passes of the forward ops (kernels/backward.cl).
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "models/ops/knobs.h"
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

bool layernorm_backward_merged_requested() {
  return read_knob("STAGEBENCH_LAYERNORM_BACKWARD", false, {{"merged", true}, {"passes", false}});
}

void OpenCLBackend::do_activation_backward(const Tensor& x, const Tensor& dy, Act act, Tensor& dx) {
  const int64_t n = x.numel();
  launch("activation_backward", cl::NDRange(round_up(n, 256)), cl::NDRange(256), x, dy,
         static_cast<int>(act), n, dx);
}

void OpenCLBackend::do_layernorm_backward(const Tensor& x, const Tensor& gamma, float eps,
                                          const Tensor& dy, Tensor& dx, Tensor& dgamma,
                                          Tensor& dbeta) {
  const int64_t cols = x.dim(-1), rows = cols > 0 ? x.numel() / cols : 0;
  if (rows == 0) {  // no rows: dgamma and dbeta are empty sums
    do_fill(dgamma, 0.0f);
    do_fill(dbeta, 0.0f);
    return;
  }
  const size_t wg = reduce_group();
  Tensor stats = empty({rows, 2});
  // dgamma and dbeta before dx, which may overwrite dy. Rows are cut into chunks, an item per
  // (chunk, column) sums its chunk in order and the chunks are summed in order: the same sums
  // on every run, with enough items to fill the device when the columns are few.
  const int64_t chunks = std::clamp<int64_t>(16384 / cols, 1, std::max<int64_t>(rows / 8, 1));
  const int64_t per_chunk = (rows + chunks - 1) / chunks;
  const int64_t used = (rows + per_chunk - 1) / per_chunk, n = used * cols;
  Tensor partials = empty({used, 2 * cols});
  launch("layernorm_backward_stats", cl::NDRange(rows * wg), cl::NDRange(wg), x, eps, cols, stats);
  launch("layernorm_backward_partials", cl::NDRange(round_up(n, 256)), cl::NDRange(256), x, dy,
         stats, rows, cols, per_chunk, n, partials);
  if (layernorm_backward_merged_ && rows * static_cast<int64_t>(wg) >= 2 * cols) {
    // The column sums ride on the dx launch, REDUCE_WG a row's work-group (dfm36: DeepFM's two
    // LayerNorms issued four launches of 6-9 us each, results/h200/dfm35-2026-11-29/timeline-on.
    // trace.json.gz; dfm36's first try, the four passes in one work-group per chunk of 13 rows,
    // took 47 us).
    launch("layernorm_backward_dx_columns", cl::NDRange(rows * wg), cl::NDRange(wg), x, gamma,
           stats, dy, to_cl_int(cols, "layernorm cols"), dx, partials,
           to_cl_int(used, "layernorm chunks"), dgamma, dbeta);
    return;
  }
  launch("layernorm_backward_columns", cl::NDRange(round_up(2 * cols, 256)), cl::NDRange(256),
         partials, used, cols, dgamma, dbeta);
  launch("layernorm_backward_dx", cl::NDRange(rows * wg), cl::NDRange(wg), x, gamma, stats, dy,
         cols, dx);
}

void OpenCLBackend::do_softmax_rows_backward(const Tensor& y, const Tensor& dy, Tensor& dx) {
  const int64_t cols = y.dim(-1), rows = y.numel() / cols;
  const size_t wg = reduce_group();
  launch("softmax_rows_backward", cl::NDRange(rows * wg), cl::NDRange(wg), y, dy, cols, dx);
}

}  // namespace sb
