#!/usr/bin/env python3
"""Per-call FLOP rates of DynUNet full's convolution kernels in one `stagebench run --timeline`
sample (issue 27): which fraction of the tensor cores' ceiling each kernel reaches.

Usage: dynunet_conv_rates.py TRACE STAGE [CEILING_GFLOPS]
  TRACE           the --timeline file (.json or .json.gz) of a DynUNet full run on OpenCL
  STAGE           the stage whose sample to read (e.g. compile)
  CEILING_GFLOPS  the peak to hold the rates against (default 748953: cuBLAS bf16 8192^3 on the
                  H100 of results/h100/gpu27-2026-11-28/final/ceilings.txt)

The step's implicit-GEMM launches (conv3d_igemm_*, and conv3d_dw_* but the dW slot sum) are one
per convolution pass, in the network's order (models/dynunet/network.cpp): the 14 forward
convolutions, then the backward from the output block to the input block, each convolution's
weight gradient before its data gradient (none for the input block's, whose input needs none).
This script pairs them with that list of shapes and fails if the counts differ.

Useful FLOPs are 2 x output voxels x Cout x Cin x k^3 (padding taps counted, as cuDNN's figures
are). A stride-2 3^3 data gradient runs as a stride-1 convolution of dy spread onto the input
grid with zeros between (conv3d_bwd_igemm.cpp): it executes 8x its useful products; "executed"
counts those. The output block's 16 -> 1 forward pass runs in a 16-wide tile: 16x its useful.
Bytes are the least any kernel must move: its inputs read once (bf16 = 2 bytes where the
kernel's name says bf16, else 4) and its output written once (fp32); the gathers' re-reads
through L1/L2 are not in them.
"""
import collections
import gzip
import json
import sys

BATCH, PATCH = 8, 64
FILTERS, STRIDES = (16, 32, 64), (1, 2, 2)


def conv_list():
    """(label, pass, cin, cout, in_edge, kernel, stride) in launch order."""
    edges = [PATCH]
    for s in STRIDES[1:]:
        edges.append(edges[-1] // s)
    res = []
    for i, f in enumerate(FILTERS):
        cin = 1 if i == 0 else FILTERS[i - 1]
        e_in = PATCH if i == 0 else edges[i - 1]
        res.append((f"res{i}", cin, f, e_in, STRIDES[i]))
    fwd = []
    for name, cin, cout, e_in, s in res:
        fwd += [(f"{name}.conv1", cin, cout, e_in, 3, s), (f"{name}.conv2", cout, cout, e_in // s, 3, 1),
                (f"{name}.conv3", cin, cout, e_in, 1, s)]
    ups = []
    for j in range(len(FILTERS) - 1):
        level = len(FILTERS) - 1 - j
        out, e = FILTERS[level - 1], edges[level - 1]
        ups.append((f"up{j}", out, e))
        fwd += [(f"up{j}.conv1", 2 * out, out, e, 3, 1), (f"up{j}.conv2", out, out, e, 3, 1)]
    fwd.append(("output", FILTERS[0], 1, PATCH, 1, 1))
    calls = [(label, "fwd", *rest) for label, *rest in fwd]
    by = {c[0]: c[2:] for c in calls}
    bwd = ["output"]
    for name, _, _ in reversed(ups):
        bwd += [f"{name}.conv2", f"{name}.conv1"]
    for i in reversed(range(len(FILTERS))):
        bwd += [f"res{i}.conv2", f"res{i}.conv1", f"res{i}.conv3"]
    for label in bwd:
        calls.append((label, "dW", *by[label]))
        if not label.startswith("res0.conv1") and not label.startswith("res0.conv3"):
            calls.append((label, "dX", *by[label]))
    return calls


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path, stage = sys.argv[1], sys.argv[2]
    ceiling = float(sys.argv[3]) if len(sys.argv) > 3 else 748953.0
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    dev = sorted((e for e in events if e.get("cat") == "device" and e.get("ph") == "X" and
                  e["args"].get("stage") == stage), key=lambda e: e["ts"])
    kernels = [e for e in dev if e["name"].startswith("conv3d_igemm_") or
               (e["name"].startswith("conv3d_dw_") and e["name"] != "conv3d_dw_sum")]
    calls = conv_list()
    if len(kernels) != len(calls):
        sys.exit(f"{len(kernels)} implicit-GEMM launches in stage {stage}, expected {len(calls)}")
    fam = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0, 0.0])
    print("conv\tpass\tkernel\tus\tGFLOP useful\tGFLOP executed\tTFLOP/s executed\t"
          "% of ceiling\tMB least\tTB/s least")
    for e, (label, pas, cin, cout, e_in, k, s) in zip(kernels, calls):
        e_out = e_in // s
        m_out = BATCH * e_out ** 3
        useful = 2.0 * m_out * cout * cin * k ** 3
        executed = useful
        if pas == "dX" and s == 2 and k == 3:
            executed = useful * s ** 3
        if pas == "fwd" and cout < 16:
            executed = useful * 16 / cout
        eb = 2 if "bf16" in e["name"] else 4
        x_in = BATCH * e_in ** 3 * cin
        w_bytes = cout * cin * k ** 3 * 4
        least = {"fwd": x_in * eb + w_bytes + m_out * cout * 4,
                 "dX": m_out * cout * eb + w_bytes + x_in * 4,
                 "dW": x_in * eb + m_out * cout * eb + w_bytes}[pas]
        us = e["dur"]
        rate = executed / (us * 1e-6) / 1e12
        print(f"{label}\t{pas}\t{e['name']}\t{us:.1f}\t{useful / 1e9:.2f}\t{executed / 1e9:.2f}\t"
              f"{rate:.1f}\t{100 * rate * 1e3 / ceiling:.1f}\t{least / 1e6:.0f}\t"
              f"{least / (us * 1e-6) / 1e12:.2f}")
        row = fam[e["name"]]
        row[0] += 1
        row[1] += us
        row[2] += useful
        row[3] += executed
        row[4] += least
    print()
    print("kernel\tcalls\tms\tGFLOP useful\tGFLOP executed\tTFLOP/s executed\t% of ceiling\t"
          "TB/s least")
    for name, (n, us, useful, executed, least) in sorted(fam.items(), key=lambda kv: -kv[1][1]):
        rate = executed / (us * 1e-6) / 1e12
        print(f"{name}\t{n}\t{us / 1e3:.3f}\t{useful / 1e9:.1f}\t{executed / 1e9:.1f}\t{rate:.1f}\t"
              f"{100 * rate * 1e3 / ceiling:.1f}\t{least / (us * 1e-6) / 1e12:.2f}")


if __name__ == "__main__":
    main()
