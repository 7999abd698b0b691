#!/usr/bin/env python3
"""PyTorch's device work per training step, kernel by kernel: what a variant of the peer launches
and how long the device runs, to set beside stagebench's own timeline of the same step (issue 27:
DeepFM against PyTorch's CUDA-graph variant, "launch count and device time of our step against
PyTorch's").

  step_profile.py --model deepfm --size full --variant compile-cuda-graph [--steps 20]
                  [--json OUT.json]

The variant is built as the peer builds it (deepfm_torch.py's RECIPES and make_trainer), warmed
up (compilation, graph capture), then `steps` steps run under torch.profiler with CUDA activity.
Per step: kernels launched (CUDA kernel events, those a CUDA graph replays included), their
device time summed, memcpy/memset device time, and the wall time of the profiled steps (the
profiler adds host work: the peer's timing, not this, is the variant's step time). The table
lists kernels by total device time.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def deepfm_step(torch, size, variant):
    import deepfm_torch as m
    s = m.SIZES[size]
    c = dict(embed=s["embed"], hidden=s["hidden"], layers=s["layers"], heads=m.heads_for(s["embed"]),
             batch=s["batch"], lr=s["lr"], weight_decay=1e-6, dropout=0.1, eps=1e-5,
             cardinality=tuple(v + 1 for v in s["vocab"]))
    if size not in m.SIZES or variant not in m.RECIPES:
        raise ValueError(f"step_profile: deepfm has sizes {', '.join(m.SIZES)} and variants "
                         f"{', '.join(m.RECIPES)}; not --size {size} --variant {variant}")
    r = m.RECIPES[variant]
    batches = m.synthetic_batches(torch, c, 16, 1, r.get("pinned", False))
    trainer = m.make_trainer(torch, c, r, "cuda", c["dropout"], batches[0])
    state = {"i": 0}

    def step():
        trainer.step(batches[state["i"] % len(batches)])
        state["i"] += 1
    return step, {"batch": c["batch"], "embed": c["embed"], "hidden": c["hidden"]}


MODELS = {"deepfm": deepfm_step}


def device_events(prof):
    """(name, kind, device microseconds) of every device-side event: kernels, memcpy, memset."""
    out = []
    for e in prof.events():
        dev_type = str(getattr(e, "device_type", ""))
        # GPU-side user annotations (e.g. "Optimizer.step#AdamW.step") span kernels; not work
        if "CUDA" not in dev_type or getattr(e, "is_user_annotation", False):
            continue
        us = e.time_range.elapsed_us()  # a device event's own span, start to end on the device
        name = e.name
        kind = ("memcpy" if "memcpy" in name.lower() else "memset" if "memset" in name.lower()
                else "kernel")
        out.append((name, kind, float(us)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=sorted(MODELS), required=True)
    ap.add_argument("--size", default="full")
    ap.add_argument("--variant", required=True)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--json")
    args = ap.parse_args()
    if args.steps <= 0 or args.warmup < 0:
        print("step_profile: --steps must be positive and --warmup not negative", file=sys.stderr)
        return 2
    import torch
    if not torch.cuda.is_available():
        print("step_profile: needs CUDA", file=sys.stderr)
        return 2
    from torch.profiler import ProfilerActivity, profile
    try:
        step, work = MODELS[args.model](torch, args.size, args.variant)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        t0 = time.perf_counter()
        for _ in range(args.steps):
            step()
        torch.cuda.synchronize()
        wall = time.perf_counter() - t0
    events = device_events(prof)
    table = {}
    for name, kind, us in events:
        row = table.setdefault(name, {"name": name, "kind": kind, "calls": 0, "us": 0.0})
        row["calls"] += 1
        row["us"] += us
    rows = sorted(table.values(), key=lambda r: -r["us"])
    per = float(args.steps)
    kernels = [r for r in rows if r["kind"] == "kernel"]
    result = {
        "model": args.model, "size": args.size, "variant": args.variant, "steps": args.steps,
        "torch": torch.__version__, "device": torch.cuda.get_device_name(), "work": work,
        "kernels_per_step": sum(r["calls"] for r in kernels) / per,
        "kernel_device_ms_per_step": sum(r["us"] for r in kernels) / per / 1e3,
        "copy_device_ms_per_step": sum(r["us"] for r in rows if r["kind"] != "kernel") / per / 1e3,
        "profiled_wall_ms_per_step": wall / per * 1e3,
        "kernels": [dict(r, calls_per_step=r["calls"] / per, us_per_step=r["us"] / per)
                    for r in rows],
    }
    print(f"{args.model} {args.size} {args.variant} on {result['device']}, torch {result['torch']}: "
          f"{result['kernels_per_step']:.1f} kernels a step, "
          f"{result['kernel_device_ms_per_step']:.3f} ms of kernels, "
          f"{result['copy_device_ms_per_step']:.3f} ms of copies; profiled wall "
          f"{result['profiled_wall_ms_per_step']:.3f} ms a step")
    print(f"{'calls/step':>10} {'us/step':>9}  kernel")
    for r in rows[:40]:
        print(f"{r['calls'] / per:10.1f} {r['us'] / per:9.1f}  {r['name'][:110]}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
