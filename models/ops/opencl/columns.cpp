// Column ops of the training step (kernels/columns.cl): concat_last and slice_last as strided
// column copies, the column gather and its scatter-add backward, and embedding_backward.
#include <algorithm>
#include <numeric>

#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

constexpr size_t kColumnGroup = 256;

}  // namespace

void OpenCLBackend::do_concat_last(std::span<const Tensor* const> xs, Tensor& y) {
  const int64_t width = y.dim(-1), rows = y.numel() / width;
  int64_t col = 0;
  for (const Tensor* x : xs) {
    const int64_t cols = x->dim(-1), n = rows * cols;
    if (n > 0)
      launch("copy_columns", cl::NDRange(round_up(n, kColumnGroup)), cl::NDRange(kColumnGroup), *x,
             cols, int64_t{0}, cols, width, col, n, y);
    col += cols;
  }
}

void OpenCLBackend::do_slice_last(const Tensor& x, int64_t start, Tensor& y) {
  const int64_t width = y.dim(-1), n = y.numel();
  launch("copy_columns", cl::NDRange(round_up(n, kColumnGroup)), cl::NDRange(kColumnGroup), x,
         x.dim(-1), start, width, width, int64_t{0}, n, y);
}

void OpenCLBackend::do_gather_cols(const Tensor& x, std::span<const int64_t> index, Tensor& y) {
  const Tensor idx = upload_index(index);
  const int64_t n = y.numel();
  launch("gather_cols", cl::NDRange(round_up(n, kColumnGroup)), cl::NDRange(kColumnGroup), x,
         x.dim(-1), idx, static_cast<int64_t>(index.size()), n, y);
}

void OpenCLBackend::do_scatter_add_cols(const Tensor& y, std::span<const int64_t> index,
                                        Tensor& x) {
  // The plan of kernels/columns.cl: the distinct target columns, where each one's sources
  // start, and the sources (y's columns) grouped by target, each group in increasing j.
  const size_t k = index.size();
  std::vector<int64_t> order(k);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return index[a] < index[b]; });
  std::vector<int64_t> targets, starts, sources;
  for (size_t s = 0; s < k; ++s) {
    const int64_t column = index[order[s]];
    if (targets.empty() || targets.back() != column) {
      targets.push_back(column);
      starts.push_back(static_cast<int64_t>(s));
    }
    sources.push_back(order[s]);
  }
  starts.push_back(static_cast<int64_t>(k));
  std::vector<int64_t> plan;
  plan.reserve(targets.size() + starts.size() + sources.size());
  for (const auto* part : {&targets, &starts, &sources})
    plan.insert(plan.end(), part->begin(), part->end());
  const Tensor plan_tensor = upload_index(plan);
  const int64_t count = static_cast<int64_t>(targets.size()), rows = x.numel() / x.dim(-1);
  const int64_t n = rows * count;
  if (n == 0) return;
  launch("scatter_add_cols", cl::NDRange(round_up(n, kColumnGroup)), cl::NDRange(kColumnGroup), y,
         static_cast<int64_t>(k), plan_tensor, count, x.dim(-1), n, x);
}

void OpenCLBackend::do_embedding_backward(const Tensor& dy, const Tensor& ids, Tensor& dtable) {
  const int64_t vocab = dtable.dim(0), dim = dtable.dim(1), tokens = ids.numel();
  if (tokens == 0) return;
  // Enough (vocabulary range, column) items to fill the device: each walks every token, so
  // more items only add parallelism, not work per item.
  const auto units =
      static_cast<int64_t>(runtime_->device().getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>());
  const int64_t groups = std::clamp<int64_t>(units * 256 / dim, 1, vocab);
  const int64_t n = groups * dim;
  launch("embedding_backward", cl::NDRange(round_up(n, kColumnGroup)), cl::NDRange(kColumnGroup),
         dy, ids, tokens, dim, vocab, groups, dtable);
}

}  // namespace sb
