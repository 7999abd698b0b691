"""A `stagebench run --timeline` trace's device commands summed by kernel name, per stage (issue 27:
where a stage spends its device time)."""
import collections
import gzip
import json


def load_events(path):
    """The trace's events; a .gz trace (as sessions keep them) is read as it is."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)["traceEvents"]


def sum_by_kernel(events):
    """{stage: {kernel: [calls, ms]}} over the device commands, in the order stages appear."""
    stages = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0.0]))
    for e in events:
        if e.get("cat") != "device" or e.get("ph") != "X":
            continue
        row = stages[e["args"].get("stage", "?")][e["name"]]
        row[0] += 1
        row[1] += e["dur"] / 1000.0
    return stages


def format_sums(stages, top=25):
    """Tab-separated tables, a stage each, the costliest kernels first."""
    lines = []
    for stage, kernels in stages.items():
        total = sum(ms for _, ms in kernels.values())
        lines.append(f"## {stage}: {total:.3f} ms of device commands in one sample")
        lines.append("kernel\tcalls\tms\tshare")
        ranked = sorted(kernels.items(), key=lambda kv: -kv[1][1])[:top]
        lines += [f"{k}\t{c}\t{ms:.3f}\t{100 * ms / (total or 1):.1f}%" for k, (c, ms) in ranked]
    return "\n".join(lines) + ("\n" if lines else "")
