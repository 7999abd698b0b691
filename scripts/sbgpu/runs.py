"""Facts read from result documents (`stagebench run -o`) and from the ceilings script's output,
for the session's log lines and for the arguments of the next call."""
import json
import os


def load_run(path, index=0):
    with open(path) as f:
        return json.load(f)["runs"][index]


def ceiling_args(text):
    """`--ceiling NAME=GFLOPS` arguments from scripts/reference/gemm_ceilings.py's last line
    ("fp32=51081,tf32=...", with or without the "cuBLAS ceilings (GFLOP/s): " prefix)."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return []
    last = lines[-1].split(": ", 1)[-1]
    args = []
    for pair in last.split(","):
        name, sep, value = pair.strip().partition("=")
        if sep and name and value:
            float(value)  # a ceiling that is not a number is the script's error, not a figure
            args += ["--ceiling", f"{name}={value}"]
    return args


def stage_line(path):
    """The first stage's status, median and GFLOP/s, and the library tuning the run used."""
    run = load_run(path)
    s = run["stages"][0]
    return "%-40s %-10s median %8.2f ms  GFLOP/s %7.0f  %s" % (
        os.path.basename(path), s["status"], s["time"]["median_ms"],
        s["throughput"].get("gflops") or 0, run["params"].get("library_tuning"))


def values_of(node, key):
    """Every value stored under KEY anywhere in the document, each once, in document order."""
    found, stack = [], [node]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            for k, v in n.items():
                if k == key and v not in found:
                    found.append(v)
            stack.extend(reversed(list(n.values())))
        elif isinstance(n, list):
            stack.extend(reversed(n))
    return found


def best_peer(run):
    """PyTorch's fastest variant that was checked correct (name, median ms), or None."""
    ref = run.get("reference") or {}
    ok = [v for v in ref.get("variants", []) if v.get("correct") and v.get("median_ms")]
    if not ok:
        return None
    best = min(ok, key=lambda v: v["median_ms"])
    return best["name"], best["median_ms"]


def ladder_line(path):
    """One line a ladder: each stage's median and status, and PyTorch's best beside them."""
    run = load_run(path)
    parts = []
    for s in run["stages"]:
        ms = s["time"].get("median_ms")
        parts.append(f"{s['id']} {ms:.3f} ms" if ms is not None else f"{s['id']} {s['status']}")
    best = best_peer(run)
    peer = f"; PyTorch best {best[0]} {best[1]:.3f} ms" if best else ""
    return f"{run['model']}/{run['size']}: " + ", ".join(parts) + peer
