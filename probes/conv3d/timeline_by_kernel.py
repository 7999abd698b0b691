#!/usr/bin/env python3
"""Sums a `stagebench run --timeline` file's device commands by kernel name, per stage (issue 27:
where DynUNet's training step spends its device time). Usage: timeline_by_kernel.py TRACE [TOP]."""
import collections
import json
import sys


def main():
    events = json.load(open(sys.argv[1]))["traceEvents"]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    by_stage = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0.0]))
    for e in events:
        if e.get("cat") == "device" and e.get("ph") == "X":
            row = by_stage[e["args"].get("stage", "?")][e["name"]]
            row[0] += 1
            row[1] += e["dur"] / 1000.0
    for stage, names in by_stage.items():
        total = sum(ms for _, ms in names.values())
        print(f"## {stage}: {total:.3f} ms of device commands in one sample")
        print("kernel\tcalls\tms\tshare")
        for name, (calls, ms) in sorted(names.items(), key=lambda kv: -kv[1][1])[:top]:
            print(f"{name}\t{calls}\t{ms:.3f}\t{100 * ms / total:.1f}%")


if __name__ == "__main__":
    main()
