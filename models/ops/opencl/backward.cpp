// Backward passes of the forward ops (kernels/backward.cl).
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

bool layernorm_backward_chunks_requested() {
  const char* env = std::getenv("STAGEBENCH_LAYERNORM_BACKWARD");
  const std::string v = env && *env ? env : "chunks";
  if (v == "chunks" || v == "passes") return v == "chunks";
  throw std::invalid_argument("STAGEBENCH_LAYERNORM_BACKWARD must be chunks or passes, not '" + v +
                              "'");
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
  // A chunk of a few rows: the four passes in one launch, a work-group per chunk (the same
  // values; dfm36: DeepFM's 256 x 768 is 20 chunks of 13 rows, whose four launches were 6-9 us
  // each, results/h200/dfm35-2026-11-29/timeline-on.trace.json.gz). Longer chunks would leave the
  // rows' statistics and dx to too few work-groups.
  constexpr int64_t kChunkRows = 16;
  if (layernorm_backward_chunks_ && per_chunk <= kChunkRows) {
    launch("layernorm_backward_chunk", cl::NDRange(static_cast<size_t>(used) * wg), cl::NDRange(wg),
           x, gamma, dy, eps, to_cl_int(rows, "layernorm rows"), to_cl_int(cols, "layernorm cols"),
           to_cl_int(per_chunk, "layernorm chunk"), stats, partials, dx);
    launch("layernorm_backward_columns", cl::NDRange(round_up(2 * cols, 256)), cl::NDRange(256),
           partials, used, cols, dgamma, dbeta);
    return;
  }
  launch("layernorm_backward_stats", cl::NDRange(rows * wg), cl::NDRange(wg), x, eps, cols, stats);
  launch("layernorm_backward_partials", cl::NDRange(round_up(n, 256)), cl::NDRange(256), x, dy,
         stats, rows, cols, per_chunk, n, partials);
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
