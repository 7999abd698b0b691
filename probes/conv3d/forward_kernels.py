"""Per-kernel device time of a DynUNet training sample's forward pass (the kernels before the
loss's first kernel), from a stagebench --timeline trace: the inference forward's share of each
kernel, since the ladder's timeline samples a training step, not an inference pass.

Usage: python3 probes/conv3d/forward_kernels.py TRACE.json[.gz] [STAGE]
"""
import gzip
import json
import sys

LOSS_FIRST = ("bce_with_logits_partial", "soft_dice_partials", "soft_dice_apply")


def main():
    path = sys.argv[1]
    stage = sys.argv[2] if len(sys.argv) > 2 else "compile"
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        data = json.load(f)
    events = data["traceEvents"] if isinstance(data, dict) else data
    dev = sorted((e for e in events if e.get("cat") == "device" and
                  e.get("args", {}).get("stage") == stage), key=lambda e: e["ts"])
    rows, total = {}, 0.0
    for e in dev:
        if e["name"] in LOSS_FIRST:
            break
        n, ms = rows.get(e["name"], (0, 0.0))
        rows[e["name"]] = (n + 1, ms + e["dur"] / 1e3)
        total += e["dur"] / 1e3
    print(f"## {stage} forward: {total:.3f} ms of device commands before the loss")
    print("kernel\tcalls\tms\tshare")
    for name, (n, ms) in sorted(rows.items(), key=lambda kv: -kv[1][1]):
        print(f"{name}\t{n}\t{ms:.3f}\t{100 * ms / total:.1f}%")


if __name__ == "__main__":
    main()
