#!/usr/bin/env python3
"""cuBLAS's f16 GEMM through PyTorch, the figure the wgmma probe's GEMM stands beside (issue 27):
C = A[M, K] . B[N, K]^T with M = N = K = each size given (default 4096 and 8192), random f16,
f32 accumulation inside cuBLAS. torch.matmul writes f16; torch.mm(..., out_dtype=torch.float32),
where this PyTorch has it, writes f32 as our kernels do. CUDA events around each product, median of
15 after 3 warm-ups. Prints one line a variant and writes JSON to argv[1] when given."""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                                "reference"))
from cuda_timing import each_call_ms, median  # noqa: E402 (the path above finds it)


def median_seconds(fn, runs=15, warmup=3):
    times = [t / 1e3 for t in each_call_ms(torch, fn, runs, warmup)]
    return median(times), times


rows = []
sizes = [int(s) for s in (sys.argv[2].split(",") if len(sys.argv) > 2 else ["4096", "8192"])]
for n in sizes:
    a = torch.randn(n, n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, n, device="cuda", dtype=torch.float16)
    variants = [("torch.matmul f16 out (cuBLAS)", lambda: torch.matmul(a, b.t()))]
    try:
        torch.mm(a, b.t(), out_dtype=torch.float32)
        variants.append(("torch.mm out_dtype=float32 (cuBLAS)",
                         lambda: torch.mm(a, b.t(), out_dtype=torch.float32)))
    except (TypeError, RuntimeError) as e:
        print(f"torch.mm out_dtype=float32 not available: {e}")
    for name, fn in variants:
        med, times = median_seconds(fn)
        tflops = 2 * n**3 / med / 1e12
        print(f"time {n}^3 {name:40s} median {med * 1e3:8.3f} ms  {tflops:6.1f} TFLOP/s")
        rows.append({"kernel": name, "m": n, "n": n, "k": n, "median_ms": med * 1e3,
                     "tflops": tflops, "samples_ms": [t * 1e3 for t in times]})
info = {"torch": torch.__version__, "cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name(), "timing": "CUDA events, median of 15 after 3 warm-ups",
        "results": rows}
if len(sys.argv) > 1:
    with open(sys.argv[1], "w") as f:
        json.dump(info, f, indent=1)
