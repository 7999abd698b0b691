#!/usr/bin/env python3
"""cpu36's paired ratios: per process, the median over rounds of preallocated-loss's sample over
each bf16 stage's, with the order statistics at n/2 -+ 0.98 sqrt(n) (the normal approximation of
the distribution-free 95% interval of a median).  ratios.py ab-*.json"""
import json
import math
import statistics
import sys

for f in sys.argv[1:]:
    d = json.load(open(f))
    st = {s["id"]: s for s in d["runs"][0]["stages"]}
    out = [f, "rounds", st["baseline"]["time"]["samples"]]
    for b in ("amp", "dataloader", "autotune"):
        if b not in st or not st[b].get("samples_ms"):
            continue
        r = sorted(p / q for p, q in zip(st["preallocated-loss"]["samples_ms"], st[b]["samples_ms"]))
        n = len(r)
        k = max(0, int(n / 2 - 1.96 * math.sqrt(n) / 2))
        out.append(f"{b} {statistics.median(r):.3f} [{r[k]:.3f}, {r[n - 1 - k]:.3f}]")
    print(*out)
