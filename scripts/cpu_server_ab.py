#!/usr/bin/env python3
"""Variants of one ladder run in turn (scripts/cpu-server.sh's AB_VARIANTS): per stage, each
process's median, and each variant against the first one of the same round (the ratio of their
medians: > 1 means the variant is faster). The host drifts by up to 15% over a call
(results/h200-host/lead35-2026-11-29), so only processes of one round compare; the rounds'
ratios say whether a difference outlasts that drift.

  cpu_server_ab.py ab-NAME-ROUND.json...   (NAME without '-'; the first NAME is the reference)
"""
import json
import os
import statistics
import sys


def medians(path):
    """{stage id: (median ms, status)} of one result, or {} when it has none."""
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return {}
    out = {}
    for st in d["runs"][0]["stages"]:
        t = st.get("time") or {}
        if t.get("median_ms") is not None:  # skipped and failed stages have none
            out[st["id"]] = (t["median_ms"], st.get("status", "?"))
    return out


def main(paths):
    runs = {}  # (variant, round) -> medians
    order = []
    for p in paths:
        name, rnd = os.path.basename(p)[3:-5].rsplit("-", 1)
        if name not in order:
            order.append(name)
        runs[(name, int(rnd))] = medians(p)
    rounds = sorted({r for _, r in runs})
    stages = []
    for m in runs.values():
        stages += [s for s in m if s not in stages]
    ref = order[0]
    print("| stage | variant | " + " | ".join(f"round {r} ms" for r in rounds) +
          f" | vs {ref}, each round | median of those |")
    print("|---|---|" + "---|" * len(rounds) + "---|---|")
    for s in stages:
        for v in order:
            cells, ratios = [], []
            for r in rounds:
                mine = runs.get((v, r), {}).get(s)
                base = runs.get((ref, r), {}).get(s)
                cells.append(f"{mine[0]:.3f} ({mine[1]})" if mine else "-")
                if mine and base:
                    ratios.append(base[0] / mine[0])
            rs = ", ".join(f"{x:.3f}" for x in ratios)
            med = f"{statistics.median(ratios):.3f}" if ratios else "-"
            print(f"| {s} | {v} | " + " | ".join(cells) + f" | {rs} | {med} |")


if __name__ == "__main__":
    main(sys.argv[1:])
