"""cuDNN's time on DynUNet full's 16-output-channel 64^3 convolutions (issue 27's yardstick for
conv3d_lines_bf16_16): torch.nn.functional.conv3d in bf16, channels_last_3d, cudnn.benchmark
on, timed with CUDA events (median of 50 after 10 warm-ups), forward and, for 16 -> 16, the data
gradient (conv_transpose3d of dy with the same weight: the same GEMM shape).

With --all: every forward convolution of DynUNet full (forward_shapes.py's FORWARD, the
transposed ones by conv_transpose3d), in the same way, as tab-separated label and microseconds
(forward_shapes.py's CUDNN.tsv).

Usage: python3 probes/conv3d/cudnn_conv_time.py [--batch 8] [--edge 64] [--all]
"""
import argparse
import os
import sys

import torch
import torch.nn.functional as F

from forward_shapes import FORWARD

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                                "reference"))
from cuda_timing import each_call_ms, median  # noqa: E402 (the path above finds it)


def timed(fn, reps=50, warm=10):
    return median(each_call_ms(torch, fn, reps, warm))


def all_forward(n):
    """cuDNN's bf16 time for each of DynUNet full's forward convolutions (bias on the output
    head alone, as the network has)."""
    print("label\tus\tTFLOP/s")
    for label, t, cin, cout, e, k, s in FORWARD:
        x = torch.randn(n, cin, e, e, e, device="cuda", dtype=torch.bfloat16)
        x = x.to(memory_format=torch.channels_last_3d)
        wshape = (cin, cout, k, k, k) if t else (cout, cin, k, k, k)
        w = torch.randn(*wshape, device="cuda", dtype=torch.bfloat16)
        w = w.to(memory_format=torch.channels_last_3d)
        b = torch.randn(cout, device="cuda", dtype=torch.bfloat16) if label == "output" else None
        if t:
            ms = timed(lambda: F.conv_transpose3d(x, w, b, stride=s))
            vox = n * e ** 3
        else:
            ms = timed(lambda: F.conv3d(x, w, b, stride=s, padding=k // 2))
            vox = n * (e // s) ** 3
        flop = 2.0 * vox * cin * cout * k ** 3
        print(f"{label}\t{ms * 1e3:.1f}\t{flop / ms / 1e9:.2f}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--edge", type=int, default=64)
    p.add_argument("--all", action="store_true")
    args = p.parse_args()
    torch.backends.cudnn.benchmark = True
    n, e = args.batch, args.edge
    print(f"# torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, "
          f"{torch.cuda.get_device_name()}")
    if args.all:
        all_forward(n)
        return
    for cin in (16, 32):
        x = torch.randn(n, cin, e, e, e, device="cuda", dtype=torch.bfloat16)
        x = x.to(memory_format=torch.channels_last_3d)
        w = torch.randn(16, cin, 3, 3, 3, device="cuda", dtype=torch.bfloat16)
        w = w.to(memory_format=torch.channels_last_3d)
        b = torch.randn(16, device="cuda", dtype=torch.bfloat16)
        flop = 2.0 * n * e ** 3 * 16 * cin * 27
        ms = timed(lambda: F.conv3d(x, w, b, padding=1))
        print(f"forward {cin}->16 B{n} {e}^3 k3 s1 p1: {ms * 1e3:.1f} us, "
              f"{flop / ms / 1e9:.1f} TFLOP/s")
        if cin == 16:
            dy = torch.randn(n, 16, e, e, e, device="cuda", dtype=torch.bfloat16)
            dy = dy.to(memory_format=torch.channels_last_3d)
            ms = timed(lambda: F.conv_transpose3d(dy, w, padding=1))
            print(f"data gradient 16->16 B{n} {e}^3: {ms * 1e3:.1f} us, "
                  f"{flop / ms / 1e9:.1f} TFLOP/s")


if __name__ == "__main__":
    main()
