// bf16 and int8 linear layers on oneDNN's matmul (brgemm kernels for avx512_core_bf16 / VNNI).
//
// bf16: weights converted once to bf16 in the blocked layout matmul picks (format_tag::any);
// activations converted f32 -> bf16 per call by a oneDNN reorder into a scratch buffer; fp32
// accumulation, f32 output. Bias is the matmul's own; act and residual are post-ops.
//
// int8 (method): weights symmetric per output channel, s_n = max|w_n| / 127, stored s8.
// Activations asymmetric per tensor: u8 with a runtime zero point, s_x = (max - min) / 255 over
// the whole input (dynamic), or over the weight's calibrated input range when it has one
// (static; values outside clamp). u8 x s8 -> s32 is VNNI's native form.
// The dequantization s_x * s_n is a per-call binary_mul post-op rather than output scales:
// oneDNN 2.6 only takes compile-time output scales on its brgemm path (runtime ones fall back
// to the reference kernel), and compile-time scales would mean a new primitive every call.
// Bias follows as a binary_add post-op (so it is added in the dequantized domain).
//
// Post-op mapping of the model's activations: relu -> eltwise_relu, GELU = x sigmoid(1.702 x)
// -> eltwise_swish with alpha 1.702 (swish(x) = x sigmoid(alpha x), exactly the model's form),
// softplus -> eltwise_soft_relu (log(1 + e^x)). Residual: sum post-op when it is y itself, else
// binary_add of the residual tensor.
#include "models/ops/cpu/gemm_dnnl.h"

#include <omp.h>
#include <dnnl.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/ops/cpu/bf16_images.h"
#include "models/ops/cpu/bf16_pack.h"
#include "models/ops/cpu/cpu_backend_impl.h"
#include "models/ops/cpu/host_storage.h"
#include "models/ops/cpu/parallel.h"
#include "models/ops/cpu/quantize.h"
#include "models/ops/cpu/scratch.h"
#include "models/ops/knobs.h"

namespace sb::cpu {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using DT = memory::data_type;

// The M a weight's layout is chosen for. brgemm picks the same blocked layout across M here
// (checked for M = 37 and 8192), so one reorder at prepare time serves every call.
constexpr memory::dim kLayoutRows = 1024;

// Weights in oneDNN's blocked layout; its bytes count as the backend's host memory.
struct DnnlWeightStorage : Storage {
  DnnlWeightStorage(memory m, std::shared_ptr<AllocationTracker> t)
      : mem(std::move(m)), bytes(mem.get_desc().get_size()), tracker(std::move(t)) {
    tracker->allocated(bytes);
  }
  ~DnnlWeightStorage() override { tracker->released(bytes); }
  memory mem;
  size_t bytes;
  std::shared_ptr<AllocationTracker> tracker;
};

enum class ResidualMode : int { none, sum, binary };

// Everything that makes a different primitive.
using PrimitiveKey =
    std::tuple<memory::dim, memory::dim, memory::dim, Precision, bool, Act, ResidualMode>;

struct CachedMatmul {
  dnnl::matmul primitive;
  // Post-op slots that take a tensor at execution (-1 when absent).
  int scale_slot = -1, bias_slot = -1, residual_slot = -1;
};

bool cpu_has(const char* feature) {
  __builtin_cpu_init();
  if (std::string(feature) == "avx512bf16") return __builtin_cpu_supports("avx512bf16");
  if (std::string(feature) == "avx512vnni") return __builtin_cpu_supports("avx512vnni");
  if (std::string(feature) == "avxvnni") return __builtin_cpu_supports("avxvnni");
  return false;
}

DT weight_type(Precision p) {
  return p == Precision::f32 ? DT::f32 : p == Precision::bf16 ? DT::bf16 : DT::s8;
}
// STAGEBENCH_CPU_GEMM_MFLOP_PER_THREAD=X: a batched product runs on at most one thread per X
// MFLOP of it (at least one), the rest of the pool idle. An experiment's knob (issue 27, item
// 6: whether DeepFM's few-hundred-MFLOP products lose to 16 threads' partitioning); unset, every
// product takes every thread.
double mflop_per_thread() {
  return read_positive_number_knob("STAGEBENCH_CPU_GEMM_MFLOP_PER_THREAD", 0.0);
}

// Caps OpenMP's team for what runs in its scope, oneDNN's primitive creation included (its
// partition is sized then, and its primitive cache keys on the thread count).
class ThreadCap {
 public:
  ThreadCap(double mflop_each, double flops) : saved_(omp_get_max_threads()) {
    if (mflop_each <= 0.0) return;
    const int want = static_cast<int>(flops / (mflop_each * 1e6));
    capped_ = std::clamp(want, 1, saved_);
    if (capped_ < saved_) omp_set_num_threads(capped_);
  }
  ~ThreadCap() {
    if (capped_ > 0 && capped_ < saved_) omp_set_num_threads(saved_);
  }
  ThreadCap(const ThreadCap&) = delete;
  ThreadCap& operator=(const ThreadCap&) = delete;
  int threads() const { return capped_ > 0 ? capped_ : saved_; }

 private:
  int saved_, capped_ = 0;
};

DT source_type(Precision p) {
  return p == Precision::f32 ? DT::f32 : p == Precision::bf16 ? DT::bf16 : DT::u8;
}

}  // namespace

struct DnnlGemm::Impl {
  explicit Impl(std::shared_ptr<AllocationTracker> t)
      : engine(dnnl::engine::kind::cpu, 0), stream(engine), tracker(t), source_scratch(t) {}

  // attr and post-ops for one epilogue; records which slots take tensors.
  dnnl::primitive_attr make_attr(Precision p, memory::dim m, memory::dim n, bool bias, Act act,
                                 ResidualMode residual, CachedMatmul* slots) const {
    dnnl::primitive_attr attr;
    dnnl::post_ops ops;
    int slot = 0;
    const memory::desc row_vector({1, n}, DT::f32, Tag::ab);
    if (p == Precision::int8) {
      attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
      ops.append_binary(dnnl::algorithm::binary_mul, row_vector);
      if (slots) slots->scale_slot = slot;
      ++slot;
      if (bias) {
        ops.append_binary(dnnl::algorithm::binary_add, row_vector);
        if (slots) slots->bias_slot = slot;
        ++slot;
      }
    }
    switch (act) {
      case Act::none:
        break;
      case Act::relu:
        ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
        ++slot;
        break;
      case Act::gelu:
        ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_swish, 1.702f, 0.0f);
        ++slot;
        break;
      case Act::softplus:
        ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_soft_relu, 0.0f, 0.0f);
        ++slot;
        break;
      case Act::gelu_erf:
        ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
        ++slot;
        break;
      case Act::leaky_relu:
        ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.01f, 0.0f);
        ++slot;
        break;
      case Act::sigmoid:
        ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_logistic, 0.0f, 0.0f);
        ++slot;
        break;
    }
    if (residual == ResidualMode::sum) {
      ops.append_sum(1.0f);
      ++slot;
    } else if (residual == ResidualMode::binary) {
      ops.append_binary(dnnl::algorithm::binary_add, memory::desc({m, n}, DT::f32, Tag::ab));
      if (slots) slots->residual_slot = slot;
      ++slot;
    }
    attr.set_post_ops(ops);
    return attr;
  }

  dnnl::matmul::primitive_desc make_pd(Precision p, memory::dim m, memory::dim n, memory::dim k,
                                       const memory::desc& weights, bool bias, Act act,
                                       ResidualMode residual, CachedMatmul* slots) const {
    const memory::desc src({m, k}, source_type(p), Tag::ab);
    const memory::desc dst({m, n}, DT::f32, Tag::ab);
    const dnnl::primitive_attr attr = make_attr(p, m, n, bias, act, residual, slots);
    // f32 and bf16 take the bias in the matmul itself; int8 adds it after dequantizing (post-op).
    if (bias && p != Precision::int8) {
      const memory::desc bias_desc({1, n}, DT::f32, Tag::ab);
      return dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, bias_desc, dst), attr,
                                          engine);
    }
    return dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, dst), attr, engine);
  }

  CachedMatmul& matmul_for(Precision p, memory::dim m, memory::dim n, memory::dim k,
                           const memory::desc& weights, bool bias, Act act, ResidualMode residual) {
    const PrimitiveKey key{m, n, k, p, bias, act, residual};
    auto it = matmuls.find(key);
    if (it != matmuls.end()) return it->second;
    CachedMatmul entry;
    entry.primitive = dnnl::matmul(make_pd(p, m, n, k, weights, bias, act, residual, &entry));
    return matmuls.emplace(key, std::move(entry)).first->second;
  }

  dnnl::reorder& to_bf16_for(memory::dim m, memory::dim k) {
    auto key = std::make_pair(m, k);
    auto it = bf16_reorders.find(key);
    if (it != bf16_reorders.end()) return it->second;
    const memory::desc from({m, k}, DT::f32, Tag::ab), to({m, k}, DT::bf16, Tag::ab);
    dnnl::reorder r(dnnl::reorder::primitive_desc(engine, from, engine, to));
    return bf16_reorders.emplace(key, std::move(r)).first->second;
  }

  // gemm_batched's matmuls (f32 and bf16), each map by everything that makes a different
  // primitive: batch, m, n, k, the descriptors' strides, and alpha and beta (baked into the
  // attributes: alpha an output scale, beta a sum post-op).
  using MatmulCache = std::map<std::vector<memory::dim>, dnnl::matmul>;
  dnnl::matmul& matmul_cached(MatmulCache& cache, const std::vector<memory::dim>& key,
                              const memory::desc& src, const memory::desc& wei,
                              const memory::desc& dst, float alpha, float beta,
                              const memory::desc* bias = nullptr) {
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    dnnl::primitive_attr attr;
    if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
    if (beta != 0.0f) {
      dnnl::post_ops ops;
      ops.append_sum(beta);
      attr.set_post_ops(ops);
    }
    const dnnl::matmul::desc d = bias != nullptr ? dnnl::matmul::desc(src, wei, *bias, dst)
                                                 : dnnl::matmul::desc(src, wei, dst);
    dnnl::matmul mm(dnnl::matmul::primitive_desc(d, attr, engine));
    return cache.emplace(key, std::move(mm)).first->second;
  }

  // Whether oneDNN has an optimized (not reference) matmul for these descriptors, asked once a
  // key: its reference kernel is many times slower than any pack.
  bool optimized(std::map<std::vector<memory::dim>, bool>& cache,
                 const std::vector<memory::dim>& key, const memory::desc& src,
                 const memory::desc& wei, const memory::desc& dst) {
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    bool ok = false;
    try {
      const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, wei, dst), engine);
      ok = std::string(pd.impl_info_str()).rfind("ref", 0) != 0;
    } catch (const dnnl::error&) {
      ok = false;
    }
    return cache.emplace(key, ok).first->second;
  }

  dnnl::engine engine;
  dnnl::stream stream;
  MatmulCache f32_batched, bf16_batched, f32_grid;
  std::map<std::vector<memory::dim>, bool> bf16_view_ok, grid_ok;
  const double gemm_mflop_per_thread = mflop_per_thread();
  std::shared_ptr<AllocationTracker> tracker;
  Scratch source_scratch;
  Scratch batched_a{tracker}, batched_b{tracker}, batched_c{tracker};
  Bf16Images images{tracker};
  std::vector<float> dequant_scales;
  std::map<PrimitiveKey, CachedMatmul> matmuls;
  std::map<std::pair<memory::dim, memory::dim>, dnnl::reorder> bf16_reorders;
};

DnnlGemm::DnnlGemm(std::shared_ptr<AllocationTracker> tracker)
    : impl_(std::make_unique<Impl>(std::move(tracker))) {}

DnnlGemm::~DnnlGemm() = default;

std::string DnnlGemm::unsupported_reason(Precision p) {
  if (p == Precision::bf16) {
    return cpu_has("avx512bf16") ? "" : "no avx512_bf16 on this CPU (oneDNN would emulate bf16)";
  }
  // Without VNNI, oneDNN's u8 x s8 kernels multiply pairs with vpmaddubsw, whose int16 sums
  // saturate: measured here on an AVX2-only CPU, a relative L2 error of 0.17 on random data.
  if (p == Precision::int8)
    return cpu_has("avx512vnni") || cpu_has("avxvnni")
               ? ""
               : "no VNNI on this CPU (oneDNN's AVX2 u8s8 kernel saturates its int16 pair sums)";
  return std::string("oneDNN path has no ") + precision_name(p) + " GEMM";
}

Weight DnnlGemm::prepare(std::span<const float> w, int64_t n, int64_t k, Precision p) {
  Impl& im = *impl_;
  Weight weight;
  weight.precision = p;
  weight.n = n;
  weight.k = k;

  // oneDNN wants weights as [K, N]; the [N, K] row-major buffer is exactly that in layout ba.
  memory user;
  std::vector<int8_t> quantized;
  if (p == Precision::bf16) {
    user = memory({{k, n}, DT::f32, Tag::ba}, im.engine, const_cast<float*>(w.data()));
  } else {
    weight.scales = make_host_tensor({n}, DType::f32, im.tracker);
    quantized.resize(static_cast<size_t>(n * k));
    quantize_weights_s8(w.data(), n, k, quantized.data(),
                        f32_data(weight.scales, "int8 weight scales"));
    user = memory({{k, n}, DT::s8, Tag::ba}, im.engine, quantized.data());
  }
  const memory::desc any({k, n}, weight_type(p), Tag::any);
  auto pd = im.make_pd(p, kLayoutRows, n, k, any, false, Act::none, ResidualMode::none, nullptr);
  memory packed(pd.weights_desc(), im.engine);
  dnnl::reorder(user, packed).execute(im.stream, user, packed);
  im.stream.wait();
  weight.data = Tensor({n, k}, p == Precision::bf16 ? DType::bf16 : DType::i8,
                       std::make_shared<DnnlWeightStorage>(std::move(packed), im.tracker));
  return weight;
}

void DnnlGemm::linear(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep) {
  Impl& im = *impl_;
  const Precision p = w.precision;
  const int64_t n = w.n, k = w.k;
  const int64_t m = x.numel() / k;
  if (m == 0) return;
  // f32 weights stay the plain [n, k] tensor every other op reads (layout ba of [k, n]); the
  // others were reordered by prepare() into oneDNN's blocked layout.
  memory weights;
  if (p == Precision::f32) {
    weights = memory({{k, n}, DT::f32, Tag::ba}, im.engine, f32_data(w.data, "linear weight"));
  } else {
    auto* packed = dynamic_cast<DnnlWeightStorage*>(w.data.storage());
    if (packed == nullptr)
      throw std::invalid_argument("linear: this weight was not prepared by the cpu backend");
    weights = packed->mem;
  }
  float* xp = f32_data(x, "linear input");
  float* yp = f32_data(y, "linear output");
  float* bias = ep.bias != nullptr ? f32_data(*ep.bias, "linear bias") : nullptr;
  float* residual = ep.residual != nullptr ? f32_data(*ep.residual, "linear residual") : nullptr;
  ResidualMode residual_mode = ResidualMode::none;
  if (residual != nullptr)
    residual_mode = residual == yp ? ResidualMode::sum : ResidualMode::binary;

  const memory::desc weights_desc = weights.get_desc();
  CachedMatmul& mm =
      im.matmul_for(p, m, n, k, weights_desc, bias != nullptr, ep.act, residual_mode);
  const memory::desc row_vector({1, n}, DT::f32, Tag::ab);
  memory src_mem, dst_mem({{m, n}, DT::f32, Tag::ab}, im.engine, yp);
  std::unordered_map<int, memory> args;
  int32_t zero_point = 0;

  if (p == Precision::f32) {
    src_mem = memory({{m, k}, DT::f32, Tag::ab}, im.engine, xp);
    if (bias) args[DNNL_ARG_BIAS] = memory(row_vector, im.engine, bias);
  } else if (p == Precision::bf16) {
    src_mem = memory({{m, k}, DT::bf16, Tag::ab}, im.engine,
                     im.source_scratch.get(static_cast<size_t>(m * k) * 2));
    memory f32_src({{m, k}, DT::f32, Tag::ab}, im.engine, xp);
    im.to_bf16_for(m, k).execute(im.stream, f32_src, src_mem);
    if (bias) args[DNNL_ARG_BIAS] = memory(row_vector, im.engine, bias);
  } else {
    auto* q = static_cast<uint8_t*>(im.source_scratch.get(static_cast<size_t>(m * k)));
    const ActivationQuant quant =
        w.calibrated() ? quantize_activations_u8_range(xp, m * k, w.input_lo, w.input_hi, q)
                       : quantize_activations_u8(xp, m * k, q);
    zero_point = quant.zero_point;
    src_mem = memory({{m, k}, DT::u8, Tag::ab}, im.engine, q);
    const float* weight_scales = f32_data(w.scales, "int8 weight scales");
    im.dequant_scales.resize(static_cast<size_t>(n));
    for (int64_t c = 0; c < n; ++c) im.dequant_scales[c] = quant.scale * weight_scales[c];
    args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] =
        memory({{1}, DT::s32, Tag::a}, im.engine, &zero_point);
    args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(mm.scale_slot) | DNNL_ARG_SRC_1] =
        memory(row_vector, im.engine, im.dequant_scales.data());
    if (bias) {
      args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(mm.bias_slot) | DNNL_ARG_SRC_1] =
          memory(row_vector, im.engine, bias);
    }
  }
  if (residual_mode == ResidualMode::binary) {
    args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(mm.residual_slot) | DNNL_ARG_SRC_1] =
        memory({{m, n}, DT::f32, Tag::ab}, im.engine, residual);
  }
  args[DNNL_ARG_SRC] = src_mem;
  args[DNNL_ARG_WEIGHTS] = weights;
  args[DNNL_ARG_DST] = dst_mem;
  mm.primitive.execute(im.stream, args);
  im.stream.wait();
}

namespace {

// The offsets' common step, or 0 when they have none > 0.
memory::dim even_step(const std::vector<int64_t>& o) {
  const int64_t d = o.size() > 1 ? o[1] - o[0] : 0;
  for (size_t i = 1; i < o.size(); ++i)
    if (o[i] - o[i - 1] != d) return 0;
  return d > 0 ? d : 0;
}

// Offsets as a grid of `inner` items a row: {outer step, inner step}, or {0, 0} when they are
// not (steps > 0; inner = 1 leaves the inner step 0).
std::pair<memory::dim, memory::dim> grid_steps(const std::vector<int64_t>& o, size_t inner) {
  if (inner == 0 || o.size() % inner != 0 || o.size() / inner < 1) return {0, 0};
  const memory::dim in = inner > 1 ? o[1] - o[0] : 0;
  const memory::dim out = o.size() > inner ? o[inner] - o[0] : 1;
  if ((inner > 1 && in <= 0) || out <= 0) return {0, 0};
  for (size_t i = 0; i < o.size(); ++i)
    if (o[i] != o[0] + static_cast<int64_t>(i / inner) * out + static_cast<int64_t>(i % inner) * in)
      return {0, 0};
  return {out, in};
}

// The inner count of g's grid (items a row): where the first unevenly stepped offset list
// breaks its step; 0 when every list steps evenly (one 3-D batch) or none is a grid.
size_t grid_inner(const GemmBatch& g) {
  for (const auto* o : {&g.a_offsets, &g.b_offsets, &g.c_offsets}) {
    if (o->size() < 3 || even_step(*o) > 0) continue;
    size_t inner = 1;
    while (inner < o->size() && (*o)[inner] - (*o)[inner - 1] == (*o)[1] - (*o)[0]) ++inner;
    for (const auto* p : {&g.a_offsets, &g.b_offsets, &g.c_offsets})
      if (grid_steps(*p, inner).first == 0) return 0;
    return inner;
  }
  return 0;
}

}  // namespace

void DnnlGemm::gemm_batched(const GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c,
                            const float* bias) {
  Impl& im = *impl_;
  const int64_t count = static_cast<int64_t>(g.a_offsets.size()), m = g.m, n = g.n, k = g.k;
  const float* ap = f32_data(a, "gemm_batched A");
  const float* bp = f32_data(b, "gemm_batched B");
  float* cp = f32_data(c, "gemm_batched C");
  auto* pa = static_cast<uint16_t*>(im.batched_a.get(static_cast<size_t>(count * m * k) * 2));
  auto* pb = static_cast<uint16_t*>(im.batched_b.get(static_cast<size_t>(count * k * n) * 2));
  // C written by the matmul itself (alpha as output scale, beta as a sum post-op) when the
  // items' C steps evenly, as in one product; otherwise into a scratch, then C = alpha T + beta C.
  const memory::dim c_step = count == 1 ? m * g.ldc : even_step(g.c_offsets);
  const bool direct = c_step > 0;
  // B in its stored orientation, dense: a transposed B is the [n, k] weight layout oneDNN reads
  // as is (strides {1, k}).
  const memory::desc wei({count, k, n}, DT::bf16,
                         g.trans_b ? memory::dims{n * k, 1, k} : memory::dims{k * n, n, 1});
  const memory::dim dst_step = direct ? c_step : m * n, dst_ld = direct ? g.ldc : n;
  const memory::desc dst({count, m, n}, DT::f32, {dst_step, dst_ld, 1});
  const float alpha = direct ? g.alpha : 1.0f, beta = direct ? g.beta : 0.0f;
  uint32_t alpha_bits, beta_bits;
  std::memcpy(&alpha_bits, &alpha, 4);
  std::memcpy(&beta_bits, &beta, 4);
  // A transposed A (a weight gradient, dY^T X) is packed in its stored orientation, [k, m], and
  // handed over as a transposed view (strides {1, m}): the transposing pack cost more than the
  // product itself (768 x 1024 x 256 on one thread here: pack 1.41 ms, plain pack 0.12, matmul
  // 1.88, matmul on the view 2.04). Unless oneDNN has only its reference kernel for that view,
  // then op(A) is packed dense [m, k] as before.
  const memory::desc src_dense({count, m, k}, DT::bf16, {m * k, k, 1});
  const memory::desc src_view({count, m, k}, DT::bf16, {m * k, 1, m});
  std::vector<memory::dim> key{count,    m,      n,          k,        g.trans_b ? 1 : 0,
                               dst_step, dst_ld, alpha_bits, beta_bits};
  const bool view = g.trans_a && im.optimized(im.bf16_view_ok, key, src_view, wei, dst);
  key.push_back(view ? 1 : 0);
  const memory::desc& src = view ? src_view : src_dense;
  // An operand whose packed form is its stored rows as they lie (dense, items back to back)
  // inside a held tensor is read from that tensor's bf16 image: the same bits, converted once a
  // hold rather than once a product.
  const uint16_t* a_bits = nullptr;
  const uint16_t* b_bits = nullptr;
  const int64_t a_rows = g.trans_a ? k : m, a_cols = g.trans_a ? m : k;
  const int64_t b_rows = g.trans_b ? n : k, b_cols = g.trans_b ? k : n;
  if (!(g.trans_a && !view) && g.lda == a_cols &&
      (count == 1 || even_step(g.a_offsets) == a_rows * a_cols))
    a_bits = im.images.find(ap + g.a_offsets[0], count * a_rows * a_cols);
  if (g.ldb == b_cols && (count == 1 || even_step(g.b_offsets) == b_rows * b_cols))
    b_bits = im.images.find(bp + g.b_offsets[0], count * b_rows * b_cols);
  if (a_bits == nullptr) pack_bf16(ap, g.a_offsets, a_rows, a_cols, g.lda, g.trans_a && !view, pa);
  if (b_bits == nullptr) pack_bf16(bp, g.b_offsets, b_rows, b_cols, g.ldb, false, pb);
  const ThreadCap cap(im.gemm_mflop_per_thread, 2.0 * count * m * n * k);
  key.push_back(cap.threads());
  // The bias in the matmul's own epilogue (fuses_bias: one product writing C itself).
  const bool with_bias = bias != nullptr && direct && count == 1;
  if (bias != nullptr && !with_bias)
    throw std::logic_error("gemm_batched: a bias only for one product that writes C itself");
  key.push_back(with_bias ? 1 : 0);
  const memory::desc bias_desc({1, 1, n}, DT::f32, {n, n, 1});
  dnnl::matmul& mm = im.matmul_cached(im.bf16_batched, key, src, wei, dst, alpha, beta,
                                      with_bias ? &bias_desc : nullptr);
  float* pt = direct
                  ? cp + g.c_offsets[0]
                  : static_cast<float*>(im.batched_c.get(static_cast<size_t>(count * m * n) * 4));
  memory sm(src, im.engine, const_cast<uint16_t*>(a_bits != nullptr ? a_bits : pa)),
      wm(wei, im.engine, const_cast<uint16_t*>(b_bits != nullptr ? b_bits : pb)),
      dm(dst, im.engine, pt);
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, dm}};
  if (with_bias)
    args.emplace(DNNL_ARG_BIAS, memory(bias_desc, im.engine, const_cast<float*>(bias)));
  mm.execute(im.stream, args);
  im.stream.wait();
  if (direct) return;
  // C = alpha T + beta C, in fp32, a row of an item per task; beta = 0 never reads C.
  parallel_for(count * m, n, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t it = r / m, i = r % m;
      float* ci = cp + g.c_offsets[it] + i * g.ldc;
      const float* ti = pt + r * n;
      if (g.beta == 0.0f) {
        for (int64_t j = 0; j < n; ++j) ci[j] = g.alpha * ti[j];
      } else {
        for (int64_t j = 0; j < n; ++j) ci[j] = g.alpha * ti[j] + g.beta * ci[j];
      }
    }
  });
}

}  // namespace sb::cpu

namespace sb::cpu {

void DnnlGemm::gemm_batched_f32(const GemmBatch& g, const float* a, const float* b, float* c,
                                const float* bias) {
  Impl& im = *impl_;
  const auto count = static_cast<memory::dim>(g.a_offsets.size());
  // Offsets without a common step > 0: one matmul per item.
  const memory::dim sa = even_step(g.a_offsets), sb = even_step(g.b_offsets),
                    sc = even_step(g.c_offsets);
  const bool batched = count > 1 && sa > 0 && sb > 0 && sc > 0;
  if (!batched && count > 1 && bias == nullptr && takes_as_grid(g)) return grid_f32(g, a, b, c);
  const memory::dim batch = batched ? count : 1;
  // op(A) [m, k], op(B) [k, n] and C [m, n] as strided views: a transpose is a stride swap.
  const memory::dims a_rc = g.trans_a ? memory::dims{1, g.lda} : memory::dims{g.lda, 1};
  const memory::dims b_rc = g.trans_b ? memory::dims{1, g.ldb} : memory::dims{g.ldb, 1};
  // A batch of one gets the item's extent as its (unused) batch stride.
  const memory::dim a_step = batched ? sa : (g.trans_a ? g.k : g.m) * g.lda;
  const memory::dim b_step = batched ? sb : (g.trans_b ? g.n : g.k) * g.ldb;
  const memory::dim c_step = batched ? sc : g.m * g.ldc;
  const memory::desc src({batch, g.m, g.k}, DT::f32, {a_step, a_rc[0], a_rc[1]});
  const memory::desc wei({batch, g.k, g.n}, DT::f32, {b_step, b_rc[0], b_rc[1]});
  const memory::desc dst({batch, g.m, g.n}, DT::f32, {c_step, g.ldc, 1});
  uint32_t alpha_bits, beta_bits;
  std::memcpy(&alpha_bits, &g.alpha, 4);
  std::memcpy(&beta_bits, &g.beta, 4);
  const ThreadCap cap(im.gemm_mflop_per_thread, 2.0 * count * g.m * g.n * g.k);
  std::vector<memory::dim> key{batch,   g.m,    g.n,        g.k,       a_step,
                               b_step,  c_step, a_rc[0],    a_rc[1],   b_rc[0],
                               b_rc[1], g.ldc,  alpha_bits, beta_bits, cap.threads()};
  // The bias in the matmul's own epilogue, broadcast over rows (and items).
  const memory::desc bias_desc({1, 1, g.n}, DT::f32, {g.n, g.n, 1});
  key.push_back(bias != nullptr ? 1 : 0);
  dnnl::matmul& mm = im.matmul_cached(im.f32_batched, key, src, wei, dst, g.alpha, g.beta,
                                      bias != nullptr ? &bias_desc : nullptr);
  for (memory::dim it = 0; it < count; it += batch) {
    memory am(src, im.engine, const_cast<float*>(a + g.a_offsets[it]));
    memory bm(wei, im.engine, const_cast<float*>(b + g.b_offsets[it]));
    memory cm(dst, im.engine, c + g.c_offsets[it]);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}};
    if (bias != nullptr)
      args.emplace(DNNL_ARG_BIAS, memory(bias_desc, im.engine, const_cast<float*>(bias)));
    mm.execute(im.stream, args);
  }
  im.stream.wait();
}

namespace {

// g's 4-D view: {rows of the grid, items a row, m, k} (and k, n; m, n) with the grid's steps.
struct GridDescs {
  memory::desc src, wei, dst;
  std::vector<memory::dim> key;
};

GridDescs grid_descs(const GemmBatch& g, size_t inner) {
  const auto [ao, ai] = grid_steps(g.a_offsets, inner);
  const auto [bo, bi] = grid_steps(g.b_offsets, inner);
  const auto [co, ci] = grid_steps(g.c_offsets, inner);
  const memory::dim rows = static_cast<memory::dim>(g.a_offsets.size() / inner);
  const memory::dim in = static_cast<memory::dim>(inner);
  const memory::dims a_rc = g.trans_a ? memory::dims{1, g.lda} : memory::dims{g.lda, 1};
  const memory::dims b_rc = g.trans_b ? memory::dims{1, g.ldb} : memory::dims{g.ldb, 1};
  uint32_t alpha_bits, beta_bits;
  std::memcpy(&alpha_bits, &g.alpha, 4);
  std::memcpy(&beta_bits, &g.beta, 4);
  return {memory::desc({rows, in, g.m, g.k}, DT::f32, {ao, ai, a_rc[0], a_rc[1]}),
          memory::desc({rows, in, g.k, g.n}, DT::f32, {bo, bi, b_rc[0], b_rc[1]}),
          memory::desc({rows, in, g.m, g.n}, DT::f32, {co, ci, g.ldc, 1}),
          {rows, in, g.m, g.n, g.k, ao, ai, bo, bi, co, ci, a_rc[0], a_rc[1], b_rc[0], b_rc[1],
           g.ldc, alpha_bits, beta_bits, omp_get_max_threads()}};
}

}  // namespace

// STAGEBENCH_CPU_BATCHED_GRID=off keeps such batches on the per-item paths (A/B).
bool DnnlGemm::takes_as_grid(const GemmBatch& g) {
  if (g.precision != Precision::f32 || g.a_offsets.size() < 2 ||
      !read_on_off_knob("STAGEBENCH_CPU_BATCHED_GRID"))
    return false;
  const size_t inner = grid_inner(g);
  if (inner == 0) return false;
  const GridDescs d = grid_descs(g, inner);
  return impl_->optimized(impl_->grid_ok, d.key, d.src, d.wei, d.dst);
}

void DnnlGemm::grid_f32(const GemmBatch& g, const float* a, const float* b, float* c) {
  Impl& im = *impl_;
  const GridDescs d = grid_descs(g, grid_inner(g));
  dnnl::matmul& mm = im.matmul_cached(im.f32_grid, d.key, d.src, d.wei, d.dst, g.alpha, g.beta);
  mm.execute(im.stream,
             {{DNNL_ARG_SRC, memory(d.src, im.engine, const_cast<float*>(a + g.a_offsets[0]))},
              {DNNL_ARG_WEIGHTS, memory(d.wei, im.engine, const_cast<float*>(b + g.b_offsets[0]))},
              {DNNL_ARG_DST, memory(d.dst, im.engine, c + g.c_offsets[0])}});
  im.stream.wait();
}

void DnnlGemm::hold_read_only(const float* data, int64_t numel) {
  impl_->images.hold(data, numel);
}

void DnnlGemm::release_read_only(const float* data) {
  impl_->images.release(data);
}

size_t DnnlGemm::bf16_image_blocks() const {
  return impl_->images.converted_blocks();
}

}  // namespace sb::cpu
