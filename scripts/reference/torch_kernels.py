#!/usr/bin/env python3
"""Per-kernel device time of PyTorch's strongest variant of a model, beside ours, by role
(issue 27: which part of the gap to attack).

  torch_kernels.py torch --model geneformer|enformer|deepfm [--variant NAME] [--size full]
                         [--steps 5] [--json OUT]
        builds the variant on the peer's shapes and weights (geneformer_torch.py /
        enformer_torch.py peer_inputs; DeepFM: deepfm_torch.py's make_trainer, a training step),
        warms it up, times --runs calls with CUDA events (median), then records --steps calls
        under torch.profiler and prints each kernel's device time a step, the kernels launched a
        step (a CUDA graph's replayed ones included) and the sums by role: for DeepFM the launch
        count and device time of PyTorch's step that issue 27 sets beside ours.
  torch_kernels.py regroup torch-MODEL.json...
        the role table again from `torch --json` output (after a change to ROLES).
  torch_kernels.py ours FILE-kernels.txt...
        the same role table for stagebench's timelines (`sbgpu kernels` output: a "## stage:"
        heading, then kernel, calls, ms rows), so both sides are grouped by one rule.

A kernel's role is the first of ROLES whose pattern its name matches, in order; a fused Triton
kernel (triton_per_fused_add_native_layer_norm_...) counts under its first matching role, so
"layernorm" there includes the residual add fused into it, as our add_layernorm does.
"""
import argparse
import json
import os
import re
import sys

ROLES = [  # (role, pattern): the first match wins
    ("pooling", r"attention_pool|pool"),
    ("attention", r"flash|fmha|attention|attn|sdpa|softmax.*bmm"),
    ("quantize", r"_s8\b|to_s8|quant"),
    ("GEMM/conv", r"gemm|nvjet|cutlass|xmma|wgmma|sm90_|sm80_|triton_mm|\bmm\b|addmm|bmm|matmul|"
                  r"conv|implicit|winograd|im2col|cudnn|fprop"),
    ("layernorm", r"layer_?norm|welford"),
    ("batchnorm/affine", r"batch_norm|affine_channels|_native_batch"),
    ("softmax", r"softmax"),
    ("activation", r"gelu|relu|sigmoid|activation|softplus|tanh|erf"),
    ("conversion", r"to_f16|f32_to|_to_copy|convert|cast|channels_to|copy"),
    ("reduction", r"mean|sum_|_sum|reduce|triton_red"),
    ("embedding/gather", r"embedding|gather|index"),
    ("elementwise", r"triton_poi|triton_per|elementwise|add_|mul_|_elements"),
]


def role_of(name):
    low = name.lower()
    # Inductor's pointwise and reduction kernels are never products, though their names list the
    # ops fused into them ("convolution" there is the bias add of a cuDNN convolution's output);
    # cuDNN's layout kernels (nchwToNhwc) only move data.
    pointwise = re.match(r"triton_(poi|per|red)_", low) is not None
    if re.search(r"nchwtonhwc|nhwctonchw", low):
        return "conversion"
    for role, pattern in ROLES:
        if pointwise and role == "GEMM/conv":
            continue
        if re.search(pattern, low):
            return role
    return "other"


def by_role(kernels):
    """kernels: [(name, calls, ms)] -> {role: [calls, ms]}, roles in ROLES' order."""
    out = {}
    for name, calls, ms in kernels:
        r = out.setdefault(role_of(name), [0, 0.0])
        r[0] += calls
        r[1] += ms
    order = [r for r, _ in ROLES] + ["other"]
    return dict(sorted(out.items(), key=lambda kv: order.index(kv[0])))


def print_table(title, kernels, top=25):
    total = sum(ms for _, _, ms in kernels)
    print(f"## {title}: {total:.3f} ms of kernels a step")
    print("role\tcalls\tms")
    for role, (calls, ms) in by_role(kernels).items():
        print(f"{role}\t{calls:g}\t{ms:.3f}")
    print("kernel\tcalls\tms\trole")
    for name, calls, ms in sorted(kernels, key=lambda k: -k[2])[:top]:
        print(f"{name[:110]}\t{calls:g}\t{ms:.3f}\t{role_of(name)}")
    print()


def ours(files):
    for path in files:
        stage, kernels = None, []
        for line in open(path):
            line = line.rstrip("\n")
            m = re.match(r"## ([^:]+):", line)
            if m:
                if stage:
                    print_table(f"{os.path.basename(path)} {stage}", kernels)
                stage, kernels = m.group(1), []
            elif stage and "\t" in line and not line.startswith("kernel\t"):
                name, calls, ms = line.split("\t")[:3]
                kernels.append((name, float(calls), float(ms)))
        if stage:
            print_table(f"{os.path.basename(path)} {stage}", kernels)


def build(torch, model, variant, size):
    """The variant's one-call function, as the model's peer mode builds it."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import peer_timing as pt
    if model == "deepfm":
        import deepfm_torch as d
        if size not in d.SIZES or variant not in d.RECIPES:
            raise ValueError(f"deepfm has sizes {', '.join(d.SIZES)} and variants "
                             f"{', '.join(d.RECIPES)}; not --size {size} --variant {variant}")
        s = d.SIZES[size]
        c = dict(embed=s["embed"], hidden=s["hidden"], layers=s["layers"],
                 heads=d.heads_for(s["embed"]), batch=s["batch"], lr=s["lr"], weight_decay=1e-6,
                 dropout=0.1, eps=1e-5, cardinality=tuple(v + 1 for v in s["vocab"]))
        r = d.RECIPES[variant]
        batches = d.synthetic_batches(torch, c, 16, 1, r.get("pinned", False))
        trainer = d.make_trainer(torch, c, r, "cuda", c["dropout"], batches[0])
        count = iter(range(1 << 62))
        return lambda: trainer.step(batches[next(count) % len(batches)])
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[re.search(r"bf16|fp16", variant)[0]]
    mode = "reduce-overhead" if "cudagraphs" in variant else (
        "max-autotune" if "max-autotune" in variant else "default")
    pt.set_tf32(torch, model == "enformer")  # as each peer's variant sets it
    if model == "geneformer":
        import geneformer_torch as g
        c, p32, ids, mask = g.peer_inputs(size, "cuda")
        p = {k: v.to(dtype) for k, v in p32.items()}
        fn = pt.compiled(torch, g.cells, mode) if variant.startswith("compile") else g.cells
        fused = "sdpa" in variant
        return lambda: (pt.step_begin(torch, mode), fn(p, c, ids, mask, fused))[1]
    import enformer_torch as e
    c, net, x = e.peer_inputs(size, "cuda")
    fn = pt.with_autocast(torch, net.forward, "cuda", dtype)
    fn = pt.compiled(torch, fn, mode) if variant.startswith("compile") else fn
    return lambda: (pt.step_begin(torch, mode), fn(x))[1]


def profile(args):
    import contextlib
    import time

    import torch
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    import cuda_timing
    variant = args.variant or {"geneformer": "compile-bf16-sdpa", "enformer": "compile-bf16",
                               "deepfm": "compile-cuda-graph"}[args.model]
    if not torch.cuda.is_available():
        print("torch_kernels: torch needs CUDA here (torch.profiler's kernel times)", file=sys.stderr)
        return 2
    t0 = time.time()
    training = args.model == "deepfm"  # a training step needs its gradients
    with contextlib.nullcontext() if training else torch.no_grad():
        try:
            call = build(torch, args.model, variant, args.size)
        except ValueError as e:
            print(f"torch_kernels: {e}", file=sys.stderr)
            return 2
        for _ in range(args.warmup):
            call()
        torch.cuda.synchronize()
        built = time.time() - t0
        times = cuda_timing.each_call_ms(torch, call, args.runs, warmup=0)
        median = cuda_timing.median(times)
        with torch_profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(args.steps):
                call()
            torch.cuda.synchronize()
    # Device-side events (kernels, copies, sets), by name: elapsed time and count a step.
    totals = {}
    for e in prof.events():
        if getattr(getattr(e, "device_type", None), "name", "") != "CUDA":
            continue
        if getattr(e, "is_user_annotation", False):  # e.g. "Optimizer.step#AdamW.step": a span
            continue
        t = totals.setdefault(e.name, [0, 0.0])
        t[0] += 1
        t[1] += e.time_range.end - e.time_range.start  # microseconds
    kernels = [(name, n / args.steps, us / 1e3 / args.steps) for name, (n, us) in totals.items()]
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, {args.model} "
          f"{args.size} {variant}: built and warmed in {built:.1f} s; one call {median:.3f} ms "
          f"(median of {args.runs}, CUDA events; min {times[0]:.3f}, max {times[-1]:.3f}); "
          f"{sum(n for _, n, _ in kernels):.1f} device commands a step")
    print_table(f"{args.model} {variant} (torch.profiler, mean of {args.steps} steps)", kernels)
    if args.json:
        json.dump({"model": args.model, "size": args.size, "variant": variant,
                   "device": torch.cuda.get_device_name(), "torch": torch.__version__,
                   "call_ms_median": median, "call_ms_all": times, "steps": args.steps,
                   "kernels": [{"name": n, "calls": c, "ms": ms, "role": role_of(n)}
                               for n, c, ms in kernels],
                   "roles": {r: {"calls": v[0], "ms": v[1]} for r, v in by_role(kernels).items()}},
                  open(args.json, "w"), indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("torch")
    t.add_argument("--model", required=True, choices=("geneformer", "enformer", "deepfm"))
    t.add_argument("--variant", help="default: the peer's best on an H200 (compile-bf16[-sdpa])")
    t.add_argument("--size", default="full")
    t.add_argument("--warmup", type=int, default=3)
    t.add_argument("--runs", type=int, default=20)
    t.add_argument("--steps", type=int, default=5)
    t.add_argument("--json")
    o = sub.add_parser("ours")
    o.add_argument("files", nargs="+")
    j = sub.add_parser("regroup", help="the role table again from a --json file of `torch`")
    j.add_argument("files", nargs="+")
    a = ap.parse_args()
    if a.cmd == "torch":
        return profile(a)
    elif a.cmd == "ours":
        ours(a.files)
    else:
        for path in a.files:
            d = json.load(open(path))
            print(f"{d['device']}, torch {d['torch']}, {d['model']} {d['size']} {d['variant']}: "
                  f"one call {d['call_ms_median']:.3f} ms (median of {len(d['call_ms_all'])}, "
                  "CUDA events)")
            print_table(f"{d['model']} {d['variant']} (torch.profiler, mean of {d['steps']} steps)",
                        [(k["name"], k["calls"], k["ms"]) for k in d["kernels"]])


if __name__ == "__main__":
    sys.exit(main())
