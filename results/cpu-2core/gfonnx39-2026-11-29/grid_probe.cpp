// Geneformer small's attention products (16 = 4 cells x 4 heads; Q K^T 512x512x64, P V
// 512x64x512) on oneDNN alone, in the three forms gfonnx39 weighs:
//   view:  onnx-graph's strided views of the fused [B, n, 3 H dh] tensor (ld 768), as main runs
//          them (gemm:jit in oneDNN 2.6);
//   pack:  the same operands first copied dense item after item, then brgemm (the new default),
//          the copy included in the time (and timed alone: "copy");
//   eager: eager's separate dense [B, n, H dh] tensors (ld 256), brgemm: what the pack aims at.
// Each rep runs every form once per product, in turn, REPS times (so that the VM's
// neighbours fall on the forms alike); the median, minimum and quartiles per product are
// printed, with the implementation oneDNN chose, and the pack's paired ratios.
//   g++ -O2 -fopenmp -std=c++20 grid_probe.cpp -ldnnl -o grid_probe && ./grid_probe [ROUNDS] [REPS]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dnnl.hpp>
#include <map>
#include <string>
#include <vector>

using dnnl::memory;
using DT = memory::data_type;

namespace {

constexpr memory::dim B = 4, H = 4, N = 512, DH = 64, D = H * DH, LD = 3 * D;

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Copies item (b, h)'s rows x cols (row stride ld, at base + b n ld + h dh) back to back.
void pack(const float* base, memory::dim rows, memory::dim cols, memory::dim ld, float* out) {
#pragma omp parallel for
  for (memory::dim r = 0; r < B * H * rows; ++r) {
    const memory::dim item = r / rows, i = r % rows, b = item / H, h = item % H;
    std::memcpy(out + r * cols, base + b * N * ld + h * DH + i * ld, cols * sizeof(float));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 5, reps = argc > 2 ? std::atoi(argv[2]) : 5;
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream st(eng);
  std::vector<float> qkv(B * N * LD), q(B * N * D), k(B * N * D), v(B * N * D);
  std::vector<float> s(B * H * N * N), ctx(B * N * D), pa(B * N * D), pb(B * N * D);
  for (size_t i = 0; i < qkv.size(); ++i) qkv[i] = static_cast<float>((i * 7919) % 1000) / 1e3f;
  for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<float>((i * 104729) % 1000) / 5e5f;
  for (memory::dim r = 0; r < B * N; ++r)
    for (memory::dim c = 0; c < D; ++c) {
      q[r * D + c] = qkv[r * LD + c];
      k[r * D + c] = qkv[r * LD + D + c];
      v[r * D + c] = qkv[r * LD + 2 * D + c];
    }
  auto desc = [](memory::dims dims, memory::dims strides) {
    return memory::desc(dims, DT::f32, strides);
  };
  // Q K^T: src {B, H, N, DH}, wei {B, H, DH, N}, dst {B, H, N, N} dense.
  // P V:   src {B, H, N, N} dense, wei {B, H, N, DH}, dst {B, H, N, DH} at ld D (the context).
  const memory::desc s_d = desc({B, H, N, N}, {H * N * N, N * N, N, 1});
  const memory::desc ctx_d = desc({B, H, N, DH}, {N * D, DH, D, 1});
  struct Form {
    std::string name;
    memory::desc qd, kd, vd;
  };
  const std::vector<Form> forms{
      {"view", desc({B, H, N, DH}, {N * LD, DH, LD, 1}), desc({B, H, DH, N}, {N * LD, DH, 1, LD}),
       desc({B, H, N, DH}, {N * LD, DH, LD, 1})},
      {"pack", desc({B, H, N, DH}, {H * N * DH, N * DH, DH, 1}),
       desc({B, H, DH, N}, {H * N * DH, N * DH, 1, DH}),
       desc({B, H, N, DH}, {H * N * DH, N * DH, DH, 1})},
      {"eager", desc({B, H, N, DH}, {N * D, DH, D, 1}), desc({B, H, DH, N}, {N * D, DH, 1, D}),
       desc({B, H, N, DH}, {N * D, DH, D, 1})}};
  std::printf("oneDNN %d.%d.%d, %d OpenMP threads\n", dnnl_version()->major, dnnl_version()->minor,
              dnnl_version()->patch, omp_get_max_threads());
  std::map<std::string, std::vector<double>> times;
  std::vector<dnnl::matmul> qk, pv;
  for (const Form& f : forms) {
    dnnl::matmul::primitive_desc a(dnnl::matmul::desc(f.qd, f.kd, s_d), eng);
    dnnl::matmul::primitive_desc b(dnnl::matmul::desc(s_d, f.vd, ctx_d), eng);
    std::printf("%-5s Q K^T: %s, P V: %s\n", f.name.c_str(), a.impl_info_str(), b.impl_info_str());
    qk.emplace_back(a);
    pv.emplace_back(b);
  }
  for (int r = 0; r <= rounds; ++r) {  // round 0 warms up, untimed
    for (int i = 0; i < reps; ++i) {
      for (size_t fi = 0; fi < forms.size(); ++fi) {
        const Form& f = forms[fi];
        float *qp = qkv.data(), *kp = qkv.data() + D, *vp = qkv.data() + 2 * D;
        if (f.name == "eager") qp = q.data(), kp = k.data(), vp = v.data();
        double t0 = now_ms();
        if (f.name == "pack") {
          pack(qkv.data(), N, DH, LD, pa.data());
          pack(qkv.data() + D, N, DH, LD, pb.data());
          qp = pa.data(), kp = pb.data();
          if (r > 0) times["copy Q,K"].push_back(now_ms() - t0);
        }
        qk[fi].execute(st, {{DNNL_ARG_SRC, memory(f.qd, eng, qp)},
                            {DNNL_ARG_WEIGHTS, memory(f.kd, eng, kp)},
                            {DNNL_ARG_DST, memory(s_d, eng, s.data())}});
        st.wait();
        double t1 = now_ms();
        if (r > 0) times[f.name + " Q K^T"].push_back(t1 - t0);
        if (f.name == "pack") {
          pack(qkv.data() + 2 * D, N, DH, LD, pb.data());
          vp = pb.data();
          if (r > 0) times["copy V"].push_back(now_ms() - t1);
        }
        pv[fi].execute(st, {{DNNL_ARG_SRC, memory(s_d, eng, s.data())},
                            {DNNL_ARG_WEIGHTS, memory(f.vd, eng, vp)},
                            {DNNL_ARG_DST, memory(ctx_d, eng, ctx.data())}});
        st.wait();
        if (r > 0) times[f.name + " P V"].push_back(now_ms() - t1);
      }
    }
  }
  // The forms' bits: each form's S and context against eager's (brgemm on dense views).
  std::vector<std::vector<float>> outs;
  for (size_t fi = 0; fi < forms.size(); ++fi) {
    const Form& f = forms[fi];
    const float *qp = qkv.data(), *kp = qkv.data() + D, *vp = qkv.data() + 2 * D;
    if (f.name == "eager") qp = q.data(), kp = k.data(), vp = v.data();
    if (f.name == "pack") {
      pack(qkv.data(), N, DH, LD, pa.data());
      pack(qkv.data() + D, N, DH, LD, pb.data());
      qp = pa.data(), kp = pb.data();
    }
    std::vector<float> s_out(s.size()), ctx_out(ctx.size());
    qk[fi].execute(st, {{DNNL_ARG_SRC, memory(f.qd, eng, const_cast<float*>(qp))},
                        {DNNL_ARG_WEIGHTS, memory(f.kd, eng, const_cast<float*>(kp))},
                        {DNNL_ARG_DST, memory(s_d, eng, s_out.data())}});
    st.wait();
    if (f.name == "pack") pack(qkv.data() + 2 * D, N, DH, LD, pb.data()), vp = pb.data();
    pv[fi].execute(st, {{DNNL_ARG_SRC, memory(s_d, eng, s.data())},
                        {DNNL_ARG_WEIGHTS, memory(f.vd, eng, const_cast<float*>(vp))},
                        {DNNL_ARG_DST, memory(ctx_d, eng, ctx_out.data())}});
    st.wait();
    outs.push_back(s_out), outs.push_back(ctx_out);
  }
  for (size_t fi = 0; fi + 1 < forms.size(); ++fi) {
    auto diff = [](const std::vector<float>& x, const std::vector<float>& y) {
      size_t n = 0;
      double worst = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        n += std::memcmp(&x[i], &y[i], 4) != 0;
        worst = std::max(worst, std::abs(double(x[i]) - y[i]) / (std::abs(double(y[i])) + 1e-6));
      }
      return std::to_string(n) + " of " + std::to_string(x.size()) + " differ (worst relative " +
             std::to_string(worst) + ")";
    };
    std::printf("%s against eager: Q K^T %s; P V %s\n", forms[fi].name.c_str(),
                diff(outs[2 * fi], outs[4]).c_str(), diff(outs[2 * fi + 1], outs[5]).c_str());
  }
  // Paired: each rep's pack (copy included) over the view and over eager, the same rep.
  for (const char* p : {"Q K^T", "P V"}) {
    for (const char* base : {"view", "eager"}) {
      std::vector<double> ratio;
      const auto& a = times[std::string("pack ") + p];
      const auto& b = times[std::string(base) + " " + p];
      for (size_t i = 0; i < a.size(); ++i) ratio.push_back(a[i] / b[i]);
      std::sort(ratio.begin(), ratio.end());
      std::printf("pack/%s %s: median of paired ratios %.3f [p25 %.3f, p75 %.3f]\n", base, p,
                  ratio[ratio.size() / 2], ratio[ratio.size() / 4], ratio[ratio.size() * 3 / 4]);
    }
  }
  const double gflop = 2.0 * B * H * N * N * DH / 1e6;  // per product, in MFLOP -> GFLOP/s below
  std::printf("%-12s %9s %9s %9s %9s %8s  (%d rounds x %d)\n", "form", "median ms", "min ms",
              "p25 ms", "p75 ms", "GFLOP/s", rounds, reps);
  for (auto& [name, t] : times) {
    std::sort(t.begin(), t.end());
    const double med = t[t.size() / 2], p25 = t[t.size() / 4], p75 = t[t.size() * 3 / 4];
    if (name.rfind("copy", 0) == 0)
      std::printf("%-12s %9.3f %9.3f %9.3f %9.3f %8s\n", name.c_str(), med, t[0], p25, p75, "-");
    else
      std::printf("%-12s %9.3f %9.3f %9.3f %9.3f %8.1f\n", name.c_str(), med, t[0], p25, p75,
                  gflop / med);
  }
  return 0;
}
