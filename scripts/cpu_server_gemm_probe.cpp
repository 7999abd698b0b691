// Where DeepFM small's products lose to the fp32 GEMM ceiling on the 16-core host (issue 27,
// item 6): each product of its training step alone, on oneDNN's matmul described the way
// DnnlGemm::gemm_batched_f32 describes it (plain strided views, a transpose a stride swap), at
// several thread counts; then the same product with B in the blocked layout oneDNN picks
// (format_tag::any, reordered outside the timing: what keeping weights blocked would save), and
// at bf16 (what amp's AMX products reach at these sizes). The ceiling's shape (2048^3) for scale.
//
//   g++ -std=c++20 -O2 -fopenmp -march=sapphirerapids -I. scripts/cpu_server_gemm_probe.cpp
//     models/ops/cpu/bf16_pack.cpp models/ops/knobs.cpp -ldnnl -o probe   (one line)
//   OMP_PROC_BIND=close OMP_PLACES=cores ./probe [THREADS...]   (default 1 2 4 8 12 16)
//   ./probe pack T    (bf16 alone and with the backend's per-call packs, at T threads)
//   ./probe split T...  (f32 on oneDNN at T threads, then as T one-thread matmuls on ranges of
//                        C's rows and of its columns in one OpenMP region)
//
// Output: one row a product and variant, the median of the timed runs in microseconds and its
// GFLOP/s.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include <dnnl.hpp>

#include "models/ops/cpu/bf16_pack.h"

namespace {

using dnnl::memory;
using DT = memory::data_type;

struct Shape {
  memory::dim m, k, n;
  bool ta, tb;
  const char* what;
};

// DeepFM small's fp32 step, every product oneDNN ran in cpu35's verbose run
// (results/h200-host/cpu35-2026-11-29/cpu-server/dnnl-verbose.txt): M x K x N, forward x W^T
// (tb), input gradient dY W, weight gradient dY^T X (ta).
const Shape kShapes[] = {
    {1024, 256, 256, false, true, "out fwd"},   {1024, 256, 512, false, true, "ff1 fwd"},
    {1024, 256, 768, false, true, "qkv fwd"},   {1024, 512, 256, false, true, "ff2 fwd"},
    {256, 1024, 512, false, true, "deep0 fwd"}, {256, 512, 512, false, true, "deep1 fwd"},
    {256, 518, 12, false, true, "head12 fwd"},  {256, 518, 4, false, true, "head4 fwd"},
    {256, 518, 6, false, true, "head6 fwd"},    {1024, 256, 256, false, false, "out dx"},
    {1024, 256, 512, false, false, "ff2 dx"},   {1024, 512, 256, false, false, "ff1 dx"},
    {1024, 768, 256, false, false, "qkv dx"},   {256, 12, 518, false, false, "head12 dx"},
    {256, 4, 518, false, false, "head4 dx"},    {256, 512, 1024, false, false, "deep0 dx"},
    {256, 512, 512, false, false, "deep1 dx"},  {256, 6, 518, false, false, "head6 dx"},
    {12, 256, 518, true, false, "head12 dW"},   {256, 1024, 256, true, false, "out dW"},
    {256, 1024, 512, true, false, "ff2 dW"},    {4, 256, 518, true, false, "head4 dW"},
    {512, 1024, 256, true, false, "ff1 dW"},    {512, 256, 1024, true, false, "deep0 dW"},
    {512, 256, 512, true, false, "deep1 dW"},   {6, 256, 518, true, false, "head6 dW"},
    {768, 1024, 256, true, false, "qkv dW"},    {2048, 2048, 2048, false, true, "ceiling"},
};

// The median time of `once` over about 40 ms of runs (at least 5), after 3 untimed.
double median_us(const std::function<void()>& once) {
  for (int i = 0; i < 3; ++i) once();
  const auto t0 = std::chrono::steady_clock::now();
  once();
  const double one = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const int runs = std::clamp(static_cast<int>(0.04 / std::max(one, 1e-6)), 5, 400);
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    const auto a = std::chrono::steady_clock::now();
    once();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
  }
  std::nth_element(t.begin(), t.begin() + runs / 2, t.end());
  return t[runs / 2] * 1e6;
}

// The median time of `pre` (if any) followed by the matmul.
double median_us(dnnl::matmul& mm, dnnl::stream& s, std::unordered_map<int, memory>& args,
                 const std::function<void()>& pre = {}) {
  return median_us([&] {
    if (pre) pre();
    mm.execute(s, args);
    s.wait();
  });
}

// blocked: B in format_tag::any, reordered once before timing. packed (bf16 only): each run
// first rounds f32 copies of A and B into the operands with the backend's own pack_bf16, as
// DnnlGemm::gemm_batched does every call (A and B in their stored orientations).
void probe(const Shape& sh, DT dt, bool blocked, int threads, dnnl::engine& eng,
           bool packed = false) {
  omp_set_num_threads(threads);  // before creation: oneDNN sizes its partition then
  dnnl::stream s(eng);
  const memory::dim m = sh.m, k = sh.k, n = sh.n;
  const memory::dims a_st = sh.ta ? memory::dims{1, m} : memory::dims{k, 1};
  const memory::dims b_st = sh.tb ? memory::dims{1, k} : memory::dims{n, 1};
  const memory::desc src({m, k}, dt, a_st), wei_plain({k, n}, dt, b_st);
  const memory::desc dst({m, n}, DT::f32, {n, 1});
  const memory::desc wei_req =
      blocked ? memory::desc({k, n}, dt, memory::format_tag::any) : wei_plain;
  dnnl::matmul::primitive_desc pd;
  try {
    pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, wei_req, dst), eng);
  } catch (const dnnl::error&) {
    std::printf("%-10s %5ldx%5ldx%5ld %s %-7s %2d threads: no primitive\n", sh.what, (long)m,
                (long)k, (long)n, dt == DT::f32 ? "f32 " : "bf16", blocked ? "blocked" : "plain",
                threads);
    return;
  }
  memory a(src, eng), bp(wei_plain, eng), c(dst, eng);
  // Inputs: small values, the same in every variant.
  auto fill = [](memory& mem) {
    const size_t bytes = mem.get_desc().get_size();
    if (mem.get_desc().data_type() == DT::f32) {
      auto* f = static_cast<float*>(mem.get_data_handle());
      for (size_t i = 0; i < bytes / 4; ++i) f[i] = 0.01f * static_cast<float>(i % 97);
    } else {
      auto* h = static_cast<unsigned short*>(mem.get_data_handle());
      for (size_t i = 0; i < bytes / 2; ++i) h[i] = 0x3c00 + static_cast<unsigned short>(i % 97);
    }
  };
  fill(a);
  fill(bp);
  memory b = bp;
  if (pd.weights_desc() != wei_plain) {
    b = memory(pd.weights_desc(), eng);
    dnnl::reorder(bp, b).execute(s, bp, b);
    s.wait();
  }
  dnnl::matmul mm(pd);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}};
  const double flops = 2.0 * m * n * k;
  std::vector<float> a32, b32;
  std::function<void()> pack;
  if (packed) {
    a32.assign(static_cast<size_t>(m * k), 0.5f);
    b32.assign(static_cast<size_t>(k * n), 0.25f);
    const int64_t a_rows = sh.ta ? k : m, a_cols = sh.ta ? m : k;
    const int64_t b_rows = sh.tb ? n : k, b_cols = sh.tb ? k : n;
    auto* pa = static_cast<uint16_t*>(a.get_data_handle());
    auto* pb = static_cast<uint16_t*>(bp.get_data_handle());
    pack = [&, a_rows, a_cols, b_rows, b_cols, pa, pb] {
      sb::cpu::pack_bf16(a32.data(), {0}, a_rows, a_cols, a_cols, false, pa);
      sb::cpu::pack_bf16(b32.data(), {0}, b_rows, b_cols, b_cols, false, pb);
    };
  }
  const double us = median_us(mm, s, args, pack);
  std::printf("%-10s %5ldx%5ldx%5ld %s %-7s %2d threads: %9.1f us %7.0f GFLOP/s  %s\n", sh.what,
              (long)m, (long)k, (long)n, dt == DT::f32 ? "f32 " : "bf16",
              packed    ? "packed"
              : blocked ? "blocked"
                        : "plain",
              threads, us, flops / us * 1e-3, pd.impl_info_str());
  std::fflush(stdout);
}

// "split T": the product as T one-thread matmuls on near-equal ranges of C's rows (by = 'm') or
// columns ('n'), run in one OpenMP region of T threads: a partition that divides the work
// evenly at any T, against oneDNN's own at T threads (whose work units need not divide by T).
void probe_split(const Shape& sh, int threads, char by, dnnl::engine& eng) {
  const memory::dim m = sh.m, k = sh.k, n = sh.n;
  std::vector<float> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n)),
      c(static_cast<size_t>(m * n));
  for (size_t i = 0; i < a.size(); ++i) a[i] = 0.01f * static_cast<float>(i % 97);
  for (size_t i = 0; i < b.size(); ++i) b[i] = 0.01f * static_cast<float>(i % 89);
  const memory::dims a_st = sh.ta ? memory::dims{1, m} : memory::dims{k, 1};
  const memory::dims b_st = sh.tb ? memory::dims{1, k} : memory::dims{n, 1};
  const memory::dim extent = by == 'm' ? m : n;
  const int parts = static_cast<int>(std::min<memory::dim>(threads, extent));
  std::vector<dnnl::matmul> mm;
  std::vector<std::unordered_map<int, memory>> args;
  omp_set_num_threads(1);  // each part's partition sized for one thread
  for (int i = 0; i < parts; ++i) {
    const memory::dim r0 = extent * i / parts, r1 = extent * (i + 1) / parts, len = r1 - r0;
    const memory::dim am = by == 'm' ? len : m, bn = by == 'm' ? n : len;
    const memory::desc src({am, k}, DT::f32, a_st), wei({k, bn}, DT::f32, b_st),
        dst({am, bn}, DT::f32, {n, 1});
    float* ap = a.data() + (by == 'm' ? (sh.ta ? r0 : r0 * k) : 0);
    float* bp = b.data() + (by == 'n' ? (sh.tb ? r0 * k : r0) : 0);
    float* cp = c.data() + (by == 'm' ? r0 * n : r0);
    mm.emplace_back(dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, wei, dst), eng));
    args.push_back({{DNNL_ARG_SRC, memory(src, eng, ap)},
                    {DNNL_ARG_WEIGHTS, memory(wei, eng, bp)},
                    {DNNL_ARG_DST, memory(dst, eng, cp)}});
  }
  omp_set_num_threads(threads);
  std::vector<dnnl::stream> streams;
  for (int i = 0; i < parts; ++i) streams.emplace_back(eng);
  const double us = median_us([&] {
#pragma omp parallel num_threads(parts)
    {
      const int i = omp_get_thread_num();
      mm[static_cast<size_t>(i)].execute(streams[static_cast<size_t>(i)],
                                         args[static_cast<size_t>(i)]);
    }
  });
  // A few elements of C against a direct sum, so that a wrong view cannot pass for a fast one.
  double worst = 0;
  for (memory::dim i = 0; i < m; i += std::max<memory::dim>(1, m / 7))
    for (memory::dim j = 0; j < n; j += std::max<memory::dim>(1, n / 7)) {
      double ref = 0;
      for (memory::dim p = 0; p < k; ++p)
        ref += double(a[static_cast<size_t>(sh.ta ? p * m + i : i * k + p)]) *
               b[static_cast<size_t>(sh.tb ? j * k + p : p * n + j)];
      worst = std::max(
          worst, std::abs(ref - c[static_cast<size_t>(i * n + j)]) / std::max(1.0, std::abs(ref)));
    }
  std::printf(
      "%-10s %5ldx%5ldx%5ld f32  split-%c %2d threads: %9.1f us %7.0f GFLOP/s  rel err %.1e\n",
      sh.what, (long)m, (long)k, (long)n, by, threads, us, 2.0 * m * n * k / us * 1e-3, worst);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  // "split T...": each product on oneDNN at T threads, then split by C's rows and by its columns.
  if (argc >= 3 && std::string(argv[1]) == "split") {
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    for (const Shape& sh : kShapes)
      for (int i = 2; i < argc; ++i) {
        const int t = std::atoi(argv[i]);
        probe(sh, DT::f32, false, t, eng);
        probe_split(sh, t, 'm', eng);
        probe_split(sh, t, 'n', eng);
      }
    return 0;
  }
  // "pack T": bf16 alone, then with the per-call packs, at T threads.
  if (argc == 3 && std::string(argv[1]) == "pack") {
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    for (const Shape& sh : kShapes) {
      probe(sh, DT::bf16, false, std::atoi(argv[2]), eng);
      probe(sh, DT::bf16, false, std::atoi(argv[2]), eng, true);
    }
    return 0;
  }
  std::vector<int> threads;
  for (int i = 1; i < argc; ++i) threads.push_back(std::atoi(argv[i]));
  if (threads.empty()) threads = {1, 2, 4, 8, 12, 16};
  const int most = *std::max_element(threads.begin(), threads.end());
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  for (const Shape& sh : kShapes) {
    for (int t : threads) probe(sh, DT::f32, false, t, eng);
    probe(sh, DT::f32, true, most, eng);
    probe(sh, DT::bf16, false, most, eng);
    probe(sh, DT::bf16, true, most, eng);
  }
  return 0;
}
