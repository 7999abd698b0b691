#!/usr/bin/env python3
"""GEMM ceilings of the GPU through cuBLAS (PyTorch), 8192^3 on random data, for
`stagebench run --ceiling`: prints fp32=...,tf32=...,fp16=...,bf16=... in GFLOP/s (median of 10
timed products after 3 warm-ups, CUDA events). torch._int_mm's int8 figure goes to stderr as
context only: on an H100 (PyTorch 2.11) it ran at 124 TOP/s, below our own s8 mma.sync GEMM, so it
is no ceiling."""
import sys

import torch

from cuda_timing import each_call_ms, median

n = 8192
out = []
for name, dtype, tf32 in (("fp32", torch.float32, False), ("tf32", torch.float32, True),
                          ("fp16", torch.float16, False), ("bf16", torch.bfloat16, False)):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    a = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, n, device="cuda", dtype=dtype)
    seconds = median(each_call_ms(torch, lambda: a @ b, runs=10)) / 1e3
    out.append(f"{name}={2 * n**3 / seconds / 1e9:.0f}")
try:
    a = torch.randint(-127, 128, (n, n), device="cuda", dtype=torch.int8)
    b = torch.randint(-127, 128, (n, n), device="cuda", dtype=torch.int8)
    seconds = median(each_call_ms(torch, lambda: torch._int_mm(a, b), runs=10)) / 1e3
    print(f"torch._int_mm int8 {n}^3: {2 * n**3 / seconds / 1e9:.0f} GOP/s "
          "(context, not a ceiling)", file=sys.stderr)
except (AttributeError, RuntimeError):
    pass  # no int8 GEMM in this PyTorch build: the int8 stages keep no ceiling
print(",".join(out))
