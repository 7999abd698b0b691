"""Per-convolution device time of a DynUNet full training sample's forward pass, from a stagebench
--timeline trace, beside cuDNN's time on the same shapes (issue 27's per-shape table in
docs/wgmma.md). The ladder's timeline samples a training step; its forward (the commands before
the loss's first kernel) is what the inference pass runs.

A convolution's commands are its weight preparation, any bf16 copy of its input and its main
kernels (conv3d_igemm_*, conv3d_lines_*, conv3d_narrow_*, the transposed convolutions' phase
GEMMs): a run of such commands, split where a weight preparation or a narrow kernel begins a
call. The network's 16 forward convolutions come in FORWARD's order (models/dynunet/network.cpp);
the script fails if the trace holds another count.

Usage: python3 probes/conv3d/forward_shapes.py TRACE.json[.gz] [STAGE] [CUDNN.tsv]
  CUDNN.tsv: `cudnn_conv_time.py --all`'s output (label, us); adds cuDNN's time and ours over it.
"""
import gzip
import json
import sys

BATCH = 8
LOSS_FIRST = ("bce_with_logits_partial", "soft_dice_partials", "soft_dice_apply")
# (label, transposed, in channels, out channels, input edge, kernel, stride); padding k // 2.
FORWARD = [
    ("res0.conv1", False, 1, 16, 64, 3, 1),
    ("res0.conv2", False, 16, 16, 64, 3, 1),
    ("res0.conv3", False, 1, 16, 64, 1, 1),
    ("res1.conv1", False, 16, 32, 64, 3, 2),
    ("res1.conv2", False, 32, 32, 32, 3, 1),
    ("res1.conv3", False, 16, 32, 64, 1, 2),
    ("res2.conv1", False, 32, 64, 32, 3, 2),
    ("res2.conv2", False, 64, 64, 16, 3, 1),
    ("res2.conv3", False, 32, 64, 32, 1, 2),
    ("up0.convt", True, 64, 32, 16, 2, 2),
    ("up0.conv1", False, 64, 32, 32, 3, 1),
    ("up0.conv2", False, 32, 32, 32, 3, 1),
    ("up1.convt", True, 32, 16, 32, 2, 2),
    ("up1.conv1", False, 32, 16, 64, 3, 1),
    ("up1.conv2", False, 16, 16, 64, 3, 1),
    ("output", False, 16, 1, 64, 1, 1),
]
STARTS = ("conv3d_weight_taps_first", "convt3d_weight_rows", "conv3d_narrow_")
MEMBERS = STARTS + ("conv3d_igemm_", "conv3d_lines_", "f32_to_bf16")


def out_edge(t, e_in, s):
    return e_in * s if t else e_in // s


def flop(t, cin, cout, e_in, k, s):
    """Useful FLOPs: 2 x output voxels x Cout x Cin x k^3 (padding taps counted, as cuDNN's
    figures are); a k2 s2 transposed convolution: 2 x input voxels x Cin x Cout x 8."""
    vox = BATCH * (e_in if t else out_edge(t, e_in, s)) ** 3
    return 2.0 * vox * cin * cout * k ** 3


def forward_calls(events, stage):
    dev = sorted((e for e in events if e.get("cat") == "device" and e.get("ph") == "X" and
                  e.get("args", {}).get("stage") == stage), key=lambda e: e["ts"])
    calls, cur = [], None
    for e in dev:
        name = e["name"]
        if name in LOSS_FIRST:
            break
        if not name.startswith(MEMBERS):
            cur = None
            continue
        if cur is None or name.startswith(STARTS):
            cur = []
            calls.append(cur)
        cur.append((name, e["dur"]))
    return calls


def read_cudnn(path):
    res = {}
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2 and not line.startswith("#"):
                try:
                    res[parts[0]] = float(parts[1])
                except ValueError:
                    pass
    return res


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    stage = sys.argv[2] if len(sys.argv) > 2 else "dataloader"
    cudnn = read_cudnn(sys.argv[3]) if len(sys.argv) > 3 else {}
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        data = json.load(f)
    events = data["traceEvents"] if isinstance(data, dict) else data
    calls = forward_calls(events, stage)
    if len(calls) != len(FORWARD):
        for c in calls:
            print(" + ".join(n for n, _ in c), file=sys.stderr)
        sys.exit(f"{len(calls)} convolution calls in stage {stage}'s forward, expected "
                 f"{len(FORWARD)}")
    print(f"## {stage} forward convolutions (B{BATCH}), one sample of {path}")
    print("conv\tshape\tkernels\tus ours\tTFLOP/s ours\tus cuDNN\tcuDNN/ours")
    total = total_cudnn = 0.0
    for (label, t, cin, cout, e_in, k, s), call in zip(FORWARD, calls):
        us = sum(d for _, d in call)
        total += us
        shape = (f"{e_in}^3 {cin}->{cout} " + (f"k{k} s{s} transposed" if t else f"k{k} s{s}"))
        kernels = " + ".join(n for n, _ in call)
        rate = flop(t, cin, cout, e_in, k, s) / (us * 1e-6) / 1e12
        ref = cudnn.get(label)
        tail = "\t-\t-"
        if ref is not None:
            total_cudnn += ref
            tail = f"\t{ref:.1f}\t{ref / us:.2f}"
        print(f"{label}\t{shape}\t{kernels}\t{us:.1f}\t{rate:.2f}{tail}")
    line = f"total\t\t\t{total:.1f}\t"
    if cudnn:
        line += f"\t{total_cudnn:.1f}\t{total_cudnn / total:.2f}"
    print(line)


if __name__ == "__main__":
    main()
