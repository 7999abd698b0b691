#!/usr/bin/env python3
"""Per-op breakdown of a CPU run made with STAGEBENCH_CPU_OP_TIMES=1 (docs/scripts.md,
scripts/cpu-server.sh): for every stage, each op's time per forward, its share, and for the GEMMs
(ops named "linear PRECISION MxKxN ..." or "gemm_batched Cx MxKxN") and the convolutions
(ops named "conv3d PASS [bf16 ]MxKxN" or "conv_transpose3d PASS [bf16 ]MxKxN": the implicit GEMM
of equal FLOPs)
the GFLOP/s it reached.

  cpu_server_ops.py RESULT.json [TOP]
"""
import json
import re
import sys

GEMM = re.compile(
    r"^(linear \S+|gemm_batched (\d+)x|(?:conv3d|conv_transpose3d) \S+(?: bf16)?) (\d+)x(\d+)x(\d+)")


def op_flops(name):
    m = GEMM.match(name)
    if not m:
        return None
    count = int(m.group(2)) if m.group(2) else 1
    rows, k, n = (int(m.group(i)) for i in (3, 4, 5))
    return 2.0 * count * rows * k * n


def table(stage, top):
    block = stage.get("opencl") or {}
    kernels = block.get("kernels") or []
    if not kernels:
        return [f"## {stage['id']}: no op times (run without STAGEBENCH_CPU_OP_TIMES=1)"]
    total = sum(k["total_ns"] for k in kernels)
    median = stage["time"]["median_ms"]
    gemm_ns = sum(k["total_ns"] for k in kernels if op_flops(k["name"]))
    lines = [f"## {stage['id']}: forward median {median:.2f} ms, ops' sum {total / 1e6:.2f} ms, "
             f"products {gemm_ns / 1e6:.2f} ms ({100 * gemm_ns / total:.0f}%)",
             "| ms | share | calls | GFLOP/s | op |", "|---|---|---|---|---|"]
    for k in kernels[:top]:
        flops = op_flops(k["name"])
        rate = f"{flops * k['launches'] / k['total_ns']:.0f}" if flops else "-"
        lines.append(f"| {k['total_ns'] / 1e6:.2f} | {100 * k['total_ns'] / total:.1f}% | "
                     f"{k['launches']:.0f} | {rate} | {k['name']} |")
    rest = kernels[top:]
    if rest:
        ns = sum(k["total_ns"] for k in rest)
        lines.append(f"| {ns / 1e6:.2f} | {100 * ns / total:.1f}% | | | {len(rest)} other ops |")
    return lines


def main():
    doc = json.load(open(sys.argv[1]))
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    out = []
    for run in doc["runs"]:
        for stage in run["stages"]:
            if stage.get("status") in ("ok", "invalid"):
                out += table(stage, top) + [""]
    print("\n".join(out))


if __name__ == "__main__":
    main()
