#!/usr/bin/env python3
"""cuBLAS's tf32 GEMM through PyTorch, the figure the gemm workload's tf32 stage stands beside
(issue 27, gemm36): C = A[M, K] . B[N, K]^T at M = N = K = each size given (default 8192), fp32
inputs and output, torch.backends.cuda.matmul.allow_tf32 = True (cuBLAS's tf32 tensor-core
kernels). Also fp32 with allow_tf32 False, the full-precision product. CUDA events around each
product, median of 15 after 3 warm-ups, as probes/wgmma/cublas_f16.py. Prints one line a variant
and writes JSON to argv[1] when given."""
import json
import sys

import torch


def median_seconds(fn, runs=15, warmup=3):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) / 1e3)
    times.sort()
    return times[len(times) // 2], times


rows = []
sizes = [int(s) for s in (sys.argv[2].split(",") if len(sys.argv) > 2 else ["8192"])]
for n in sizes:
    a = torch.rand(n, n, device="cuda", dtype=torch.float32) * 2 - 1
    b = torch.rand(n, n, device="cuda", dtype=torch.float32) * 2 - 1
    for name, tf32 in [("torch.matmul fp32 allow_tf32=True (cuBLAS tf32)", True),
                       ("torch.matmul fp32 allow_tf32=False (cuBLAS fp32)", False)]:
        torch.backends.cuda.matmul.allow_tf32 = tf32
        med, times = median_seconds(lambda: torch.matmul(a, b.t()))
        tflops = 2 * n**3 / med / 1e12
        print(f"time {n}^3 {name:50s} median {med * 1e3:8.3f} ms  {tflops:6.1f} TFLOP/s")
        rows.append({"kernel": name, "m": n, "n": n, "k": n, "median_ms": med * 1e3,
                     "tflops": tflops, "samples_ms": [t * 1e3 for t in times]})
torch.backends.cuda.matmul.allow_tf32 = False
info = {"torch": torch.__version__, "cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name(), "timing": "CUDA events, median of 15 after 3 warm-ups",
        "results": rows}
if len(sys.argv) > 1:
    with open(sys.argv[1], "w") as f:
        json.dump(info, f, indent=1)
