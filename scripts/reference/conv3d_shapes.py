#!/usr/bin/env python3
"""cuDNN's time for DynUNet full's forward conv3d shapes (B8 64^3; the list of
probes/conv3d/conv3d_igemm_check.cpp), for comparing our implicit GEMM with it on the same GPU:
torch.nn.functional.conv3d on channels_last_3d tensors, cudnn.benchmark on, in tf32 (fp32 tensors
with TF32 allowed: our DynUNet stages' precision on OpenCL), bf16 and fp16. Median of 50 calls
timed one by one with CUDA events, after 10 warm-ups (which also run the benchmark search). Prints
a TSV table: shape, dtype, ms, TFLOP/s (2 M N K over the median).
`--backward`: the same for the two backward passes (aten.convolution_backward with only the
weight gradient, then only the input gradient asked for; pass "dW" / "dX"), tf32 only unless
`--all-dtypes`: the cuDNN figures beside conv3d_igemm_check bwd (issue 27)."""
import sys

import torch
import torch.nn.functional as F

from cuda_timing import each_call_ms, median

torch.backends.cudnn.benchmark = True
torch.backends.cudnn.allow_tf32 = True
torch.backends.cuda.matmul.allow_tf32 = True

B = 8
CASES = [  # where, in, out, edge, kernel, stride, bias
    ("input_block.conv1", 1, 16, 64, 3, 1, False),
    ("input_block.conv2, upsamples.1.conv2", 16, 16, 64, 3, 1, False),
    ("input_block.conv3", 1, 16, 64, 1, 1, False),
    ("downsamples.0.conv1", 16, 32, 64, 3, 2, False),
    ("downsamples.0.conv2, upsamples.0.conv2", 32, 32, 32, 3, 1, False),
    ("downsamples.0.conv3", 16, 32, 64, 1, 2, False),
    ("bottleneck.conv1", 32, 64, 32, 3, 2, False),
    ("bottleneck.conv2", 64, 64, 16, 3, 1, False),
    ("bottleneck.conv3", 32, 64, 32, 1, 2, False),
    ("upsamples.0.conv1", 64, 32, 32, 3, 1, False),
    ("upsamples.1.conv1", 32, 16, 64, 3, 1, False),
    ("output_block", 16, 1, 64, 1, 1, True),
]


def median_ms(fn, warm=10, reps=50):
    return median(each_call_ms(torch, fn, runs=reps, warmup=warm))


print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, cuDNN "
      f"{torch.backends.cudnn.version()}")
BACKWARD = "--backward" in sys.argv
DTYPES = (("tf32", torch.float32), ("bf16", torch.bfloat16), ("fp16", torch.float16))
if BACKWARD and "--all-dtypes" not in sys.argv:
    DTYPES = DTYPES[:1]
print("shape\tM\tN\tK\tdtype\t" + ("pass\t" if BACKWARD else "") + "ms\tTFLOP/s")
for where, cin, cout, edge, k, stride, bias in CASES:
    pad = 1 if k == 3 else 0
    o = (edge + 2 * pad - k) // stride + 1
    m, n, kk = B * o ** 3, cout, cin * k ** 3
    name = f"{where}: {B}x{edge}^3x{cin}->{cout} k{k} s{stride}"
    for dtype_name, dtype in DTYPES:
        x = torch.randn(B, cin, edge, edge, edge, device="cuda", dtype=dtype).to(
            memory_format=torch.channels_last_3d)
        w = (torch.randn(cout, cin, k, k, k, device="cuda", dtype=dtype) / kk ** 0.5).to(
            memory_format=torch.channels_last_3d)
        b = torch.randn(cout, device="cuda", dtype=dtype) if bias else None
        if BACKWARD:
            dy = torch.randn(B, cout, o, o, o, device="cuda", dtype=dtype).to(
                memory_format=torch.channels_last_3d)
            for pass_name, mask in (("dW", [False, True, False]), ("dX", [True, False, False])):
                ms = median_ms(lambda: torch.ops.aten.convolution_backward(
                    dy, x, w, None, [stride] * 3, [pad] * 3, [1] * 3, False, [0] * 3, 1, mask))
                print(f"{name}\t{m}\t{n}\t{kk}\t{dtype_name}\t{pass_name}\t{ms:.4f}\t"
                      f"{2 * m * n * kk / ms / 1e9:.2f}", flush=True)
            continue
        with torch.no_grad():
            ms = median_ms(lambda: F.conv3d(x, w, b, stride=stride, padding=pad))
        print(f"{name}\t{m}\t{n}\t{kk}\t{dtype_name}\t{ms:.4f}\t{2 * m * n * kk / ms / 1e9:.2f}",
              flush=True)
