// Many small fp32 products in one launch (kernels/gemm_general.cl's gemm_batched_small). A
// library's batched GEMM pads each 4 x 4 attention product to its tile and uploads offset
// arrays per call; here the offsets are described by ItemStrides instead, so nothing is
// uploaded and the launch is one kernel.
#include <array>
#include <cstdlib>
#include <limits>

#include "models/ops/knobs.h"
#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

// Strides may step backwards (items in reverse order), so unlike sizes they may be negative.
int signed_cl_int(int64_t v, const char* what) {
  if (v < std::numeric_limits<cl_int>::min() || v > std::numeric_limits<cl_int>::max())
    throw std::invalid_argument(std::string("OpenCL backend: gemm_batched ") + what + " = " +
                                std::to_string(v) + " does not fit the kernels' 32-bit indices");
  return static_cast<int>(v);
}

}  // namespace

bool thin_gemm_small_requested() {
  return read_knob("STAGEBENCH_THIN_GEMM", true, {{"small", true}, {"mma", false}});
}

std::optional<OpenCLBackend::ItemStrides> OpenCLBackend::item_strides(
    const std::vector<int64_t>& offsets) {
  const auto count = static_cast<int64_t>(offsets.size());
  if (count == 0) return std::nullopt;
  ItemStrides s;
  s.base = offsets[0];
  s.step = count > 1 ? offsets[1] - offsets[0] : 0;
  // The leading run that steps evenly is the inner dimension; the item after it starts the
  // next run, `outer` after the first.
  int64_t inner = 1;
  while (inner < count && offsets[inner] - offsets[inner - 1] == s.step) ++inner;
  s.inner = inner;
  s.outer = inner < count ? offsets[inner] - offsets[0] : 0;
  for (int64_t t = 0; t < count; ++t)
    if (offsets[t] != s.base + (t / inner) * s.outer + (t % inner) * s.step) return std::nullopt;
  return s;
}

bool OpenCLBackend::small_products(const GemmBatch& g) {
  return g.a_offsets.size() > 1 && narrow_product(g) && item_strides(g.a_offsets) &&
         item_strides(g.b_offsets) && item_strides(g.c_offsets);
}

bool OpenCLBackend::narrow_product(const GemmBatch& g) {
  constexpr int64_t kNarrow = 16, kMaxElements = 4096;
  return std::min(g.m, g.n) <= kNarrow && g.m * g.n <= kMaxElements;
}

void OpenCLBackend::gemm_batched_small(const GemmBatch& g, const Tensor& a, const Tensor& b,
                                       Tensor& c, const Tensor* bias) {
  const auto as = item_strides(g.a_offsets), bs = item_strides(g.b_offsets),
             cs = item_strides(g.c_offsets);
  if (!as || !bs || !cs) throw std::logic_error("gemm_batched_small: offsets without ItemStrides");
  const auto items = static_cast<int64_t>(g.a_offsets.size());
  const int64_t elements = g.m * g.n * items;
  if (elements == 0) return;
  // From K 128 a work-group of 32 lanes shares each element (gemm_batched_small_lanes): below
  // it, one work-item's loop is short and the lanes' reduction would cost more than it saves.
  constexpr int64_t kLanesFromK = 128, kLanes = 32;  // kLanes: SMALL_LANES in gemm_general.cl
  const bool lanes = g.k >= kLanesFromK;
  constexpr size_t kGroup = 128;
  auto args = [](const ItemStrides& s) {
    return std::array<int, 4>{signed_cl_int(s.base, "offset"), signed_cl_int(s.outer, "stride"),
                              signed_cl_int(s.step, "stride"), signed_cl_int(s.inner, "items")};
  };
  const auto ax = args(*as), bx = args(*bs), cx = args(*cs);
  // Where c was noticed for f16 reads, its f16 copy beside it (every element of c a product
  // writes: the caller's notice promises that this call writes all of c).
  const Tensor* copy = f16_copy_to_write(c);
  const cl::NDRange global(lanes ? static_cast<size_t>(elements * kLanes)
                                 : round_up(elements, kGroup));
  launch(lanes ? "gemm_batched_small_lanes" : "gemm_batched_small", global,
         cl::NDRange(lanes ? static_cast<size_t>(kLanes) : kGroup), to_cl_int(g.m, "m"),
         to_cl_int(g.n, "n"), to_cl_int(g.k, "k"), g.trans_a ? 1 : 0, g.trans_b ? 1 : 0, g.alpha,
         g.beta, to_cl_int(items, "items"), a, ax[0], ax[1], ax[2], ax[3], to_cl_int(g.lda, "lda"),
         b, bx[0], bx[1], bx[2], bx[3], to_cl_int(g.ldb, "ldb"), c, cx[0], cx[1], cx[2], cx[3],
         to_cl_int(g.ldc, "ldc"), bias, bias ? 1 : 0, copy, copy ? 1 : 0);
}

}  // namespace sb
