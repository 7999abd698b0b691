"""Tables of a before/after call (scripts/gpu.sh wgmma): each run's stages with a switch off
(NAME-off.json, e.g. STAGEBENCH_WGMMA=off) against the default (NAME-on.json), from the JSON files in
one folder.

Usage: python3 -m sbgpu pairs DIR (or scripts/wgmma-summary.py DIR, its first name). Prints Markdown: per pair and stage, the median time off and on, the ratio off / on, each side's
gemm_path, the on side's TFLOP/s where the stage counts FLOPs, and whether both passed their
correctness checks; for the gemm benchmark's runs (gemm-MxNxK-*.json, and gemm-8192-* as 8192^3)
the GEMM kernel's own device time per call (opencl.kernels, the f32_to_f16 conversion of x left
out) and its TFLOP/s; then each run's params.gemm_paths, and PyTorch's fastest correct variant
where a peer ran.
"""
import glob
import os

from .runs import best_peer, load_run as load


def kernel_table(folder):
    print("| file | stage time ms | GEMM kernel | kernel ms per call | kernel TFLOP/s |")
    print("|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(folder, "gemm-*.json"))):
        run = load(path)
        m, n, k = (run["params"][d] for d in ("m", "n", "k"))
        for s in run["stages"]:
            if s["id"] != "fp16" or not s.get("opencl"):
                continue
            for kern in s["opencl"]["kernels"]:
                if kern["name"] == "f32_to_f16":
                    continue
                ms = kern["total_ns"] / kern["launches"] / 1e6
                print(f"| {os.path.basename(path)} | {s['time']['median_ms']:.3f} | {kern['name']} "
                      f"| {ms:.4f} | {2 * m * n * k / (ms / 1e3) / 1e12:.1f} |")


def main(folder):
    names = sorted({os.path.basename(p)[: -len("-off.json")]
                    for p in glob.glob(os.path.join(folder, "*-off.json"))})
    print("| run | stage | off ms | on ms | off / on | gemm_path off | gemm_path on | on TFLOP/s | checks |")
    print("|---|---|---|---|---|---|---|---|---|")
    paths = {}
    for name in names:
        on_path = os.path.join(folder, name + "-on.json")
        if not os.path.exists(on_path):
            continue
        off, on = load(os.path.join(folder, name + "-off.json")), load(on_path)
        paths[name] = (off["params"].get("gemm_paths"), on["params"].get("gemm_paths"))
        on_stages = {s["id"]: s for s in on["stages"]}
        for s in off["stages"]:
            t = on_stages.get(s["id"])
            if t is None or s["time"]["median_ms"] is None or t["time"]["median_ms"] is None:
                continue
            a, b = s["time"]["median_ms"], t["time"]["median_ms"]
            gf = t["throughput"].get("gflops")
            checks = "/".join(str(x["correctness"].get("pass")) for x in (s, t))
            print(f"| {name} | {s['id']} | {a:.3f} | {b:.3f} | {a / b:.3f} | {s.get('gemm_path')} "
                  f"| {t.get('gemm_path')} | {gf / 1000 if gf else float('nan'):.1f} | {checks} |")
    print()
    kernel_table(folder)
    print()
    for name, (a, b) in paths.items():
        print(f"- {name}: off: {a}; on: {b}")
    for path in sorted(glob.glob(os.path.join(folder, "*-on.json"))):
        best = best_peer(load(path))
        if best:
            print(f"- {os.path.basename(path)}: PyTorch's fastest correct variant "
                  f"{best[0]} {best[1]:.3f} ms")
